"""Behaviour of gate.urls: which URLs an answer cites, and when two URLs are the same page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.cli import main
from gate.urls import canonical, extract_urls, host, is_under, registered_domain

# --------------------------------------------------------------------------------------------------
# canonical(): two spellings of one page share a key
# --------------------------------------------------------------------------------------------------

SAME_PAGE = [
    # (rule, one spelling, another spelling)
    ("http and https are the same", "http://example.com/a", "https://example.com/a"),
    ("scheme case is ignored", "HTTPS://example.com/a", "https://example.com/a"),
    ("host case is ignored", "https://Example.COM/a", "https://example.com/a"),
    ("a leading www. is dropped", "https://www.example.com/a", "https://example.com/a"),
    ("default port 80 is dropped", "http://example.com:80/a", "https://example.com/a"),
    ("default port 443 is dropped", "https://example.com:443/a", "https://example.com/a"),
    ("the fragment is dropped", "https://example.com/a#section-2", "https://example.com/a"),
    ("a trailing slash is ignored", "https://example.com/a/", "https://example.com/a"),
    ("an empty path is the root", "https://example.com", "https://example.com/"),
    ("utm_* parameters are dropped", "https://example.com/a?utm_source=x&utm_medium=y", "https://example.com/a"),
    ("any utm_ parameter is dropped", "https://example.com/a?utm_whatever=1", "https://example.com/a"),
    ("gclid is dropped", "https://example.com/a?gclid=abc", "https://example.com/a"),
    ("fbclid is dropped", "https://example.com/a?id=3&fbclid=abc", "https://example.com/a?id=3"),
    ("mailchimp ids are dropped", "https://example.com/a?mc_cid=1&mc_eid=2", "https://example.com/a"),
    ("ref_src / ref_url are dropped", "https://example.com/a?ref_src=t&ref_url=u", "https://example.com/a"),
    ("igshid is dropped", "https://example.com/a?igshid=1", "https://example.com/a"),
    ("msclkid and yclid are dropped", "https://example.com/a?msclkid=1&yclid=2", "https://example.com/a"),
    ("hubspot ids are dropped", "https://example.com/a?_hsenc=1&_hsmkt=2", "https://example.com/a"),
    ("spm is dropped", "https://example.com/a?spm=a2.b3", "https://example.com/a"),
    ("parameter order is ignored", "https://example.com/s?b=2&a=1", "https://example.com/s?a=1&b=2"),
    ("repeated keys sort by value", "https://example.com/s?t=z&t=a", "https://example.com/s?t=a&t=z"),
    ("%7E is the same as ~", "https://example.com/%7Euser/", "https://example.com/~user"),
    ("encoded unreserved letters are decoded", "https://example.com/%41bc", "https://example.com/Abc"),
    ("escape hex case is ignored", "https://example.com/a%2fb", "https://example.com/a%2Fb"),
    ("a space is percent-encoded", "https://example.com/a b", "https://example.com/a%20b"),
    ("non-ASCII path is UTF-8 encoded", "https://example.com/café", "https://example.com/caf%C3%A9"),
    ("+ and %20 in a query are both a space", "https://example.com/s?q=a+b", "https://example.com/s?q=a%20b"),
    ("userinfo is dropped", "https://user:secret@example.com/a", "https://example.com/a"),
    ("dot segments are resolved", "https://example.com/a/./b/../c", "https://example.com/a/c"),
    ("surrounding whitespace is ignored", "  https://example.com/a \n", "https://example.com/a"),
    # The query is read like the path: sub-delimiters that need no encoding mean the same either way.
    ("an apostrophe in a query, encoded or not", "https://example.com/search?q=O'Reilly",
     "https://example.com/search?q=O%27Reilly"),
    ("parentheses in a query, encoded or not", "https://example.com/s?q=(x)", "https://example.com/s?q=%28x%29"),
    ("... in a query key too", "https://example.com/s?f(x)=1", "https://example.com/s?f%28x%29=1"),
    ("other sub-delimiters in a query", "https://example.com/s?q=a!b*c$d,e:f@g/h?i",
     "https://example.com/s?q=a%21b%2Ac%24d%2Ce%3Af%40g%2Fh%3Fi"),
    ("an = inside a value is the value's", "https://example.com/s?q=a=b", "https://example.com/s?q=a%3Db"),
    # Host names as browsers map them (UTS #46): answers in CJK text carry such hosts.
    ("full-width letters in a host", "https://\uff25\uff58\uff41\uff4d\uff50\uff4c\uff45.com/a",
     "https://example.com/a"),
    ("an ideographic full stop in a host", "https://example\u3002com/a", "https://example.com/a"),
    ("zero-width characters in a host", "https://exa\u200bmple.com\u2060/a", "https://example.com/a"),
    ("a backslash before the query is a slash", "https://example.com\\a\\b", "https://example.com/a/b"),
    ("leading zeros in a port", "https://example.com:0443/a", "https://example.com/a"),
    ("IPv6 zeros compressed", "https://[0:0:0:0:0:0:0:1]:8080/x", "https://[::1]:8080/x"),
    ("userinfo may hold brackets", "https://a]b@example.com/a", "https://example.com/a"),
    ("any number of slashes after the scheme", "https:/example.com/a", "https:///example.com/a"),
    ("http and https merge when unparseable", "http://user:pass@/", "HTTPS://user:pass@/"),
    ("a lone surrogate reads as U+FFFD, as in a browser", "https://example.com/a\ud800", "https://example.com/a%EF%BF%BD"),
]


@pytest.mark.parametrize(("rule", "left", "right"), SAME_PAGE, ids=[c[0] for c in SAME_PAGE])
def test_canonical_merges_spellings_of_one_page(rule: str, left: str, right: str) -> None:
    assert canonical(left) == canonical(right)


DIFFERENT_PAGES = [
    ("path case is kept", "https://example.com/Page", "https://example.com/page"),
    ("a non-default port is kept", "https://example.com:8080/a", "https://example.com/a"),
    ("other subdomains are kept", "https://docs.example.com/a", "https://example.com/a"),
    ("ordinary parameters are kept", "https://example.com/item?id=1", "https://example.com/item?id=2"),
    ("a blank value is kept", "https://example.com/s?q=", "https://example.com/s"),
    ("an encoded slash is not a slash", "https://example.com/a%2Fb", "https://example.com/a/b"),
    # In a query, "&", "=", "+" and ";" carry the form syntax: their encoded forms are other queries.
    ("an encoded & is not a separator", "https://example.com/s?q=a%26b", "https://example.com/s?q=a&b"),
    ("an encoded = in a key is not the separator", "https://example.com/s?a%3Db=c", "https://example.com/s?a=b%3Dc"),
    ("an encoded + is a plus, not a space", "https://example.com/s?q=a%2Bb", "https://example.com/s?q=a+b"),
    ("an encoded ; is not a separator", "https://example.com/s?q=a%3Bb", "https://example.com/s?q=a;b"),
    ("a full-width letter is not an accent", "https://\uff45xample.com/", "https://\u00e9xample.com/"),
    ("unparseable URLs stay apart", "http://user:pass@/", "http://?"),
    ("... from each other", "http://?", "http://#"),
]


@pytest.mark.parametrize(("rule", "left", "right"), DIFFERENT_PAGES, ids=[c[0] for c in DIFFERENT_PAGES])
def test_canonical_keeps_different_pages_apart(rule: str, left: str, right: str) -> None:
    assert canonical(left) != canonical(right)


EXACT_KEYS = [
    ("http://WWW.Example.com:80/a/b/?utm_source=x&b=2&a=1#top", "https://example.com/a/b?a=1&b=2"),
    ("https://example.com", "https://example.com/"),
    ("https://example.com/?", "https://example.com/"),
    ("https://example.com/s?a=&b=1", "https://example.com/s?a=&b=1"),
    ("https://BÜCHER.example/Seite", "https://bücher.example/Seite"),
    ("https://xn--bcher-kva.example/", "https://bücher.example/"),
    ("https://en.wikipedia.org/wiki/Python_%28programming_language%29",
     "https://en.wikipedia.org/wiki/Python_(programming_language)"),
    ("https://example.com/%7euser/%2f", "https://example.com/~user/%2F"),
    ("https://en.wikipedia.org/wiki/Python_(programming_language)",
     "https://en.wikipedia.org/wiki/Python_(programming_language)"),
    ("https://[::1]:8080/x", "https://[::1]:8080/x"),
    ("https://example.com/search?q=O%27Reilly&f=%28x%29", "https://example.com/search?f=(x)&q=O'Reilly"),
    ("https://\uff37\uff37\uff37\uff0eB\u00dcCHER\u3002example/", "https://b\u00fccher.example/"),
    ("https://example.com:00080/", "https://example.com/"),
    # An http(s) URL without a host keys on its text after the scheme, so it matches only itself.
    ("http://user:pass@/", "https://user:pass@/"),
    ("http://?", "https://?"),
    ("http://[::1/x", "https://[::1/x"),
]


@pytest.mark.parametrize(("url", "key"), EXACT_KEYS)
def test_canonical_key_spelling(url: str, key: str) -> None:
    assert canonical(url) == key


JUNK = ["", "   ", "not a url", "http://[::1", "https://example.com:notaport/", "%%%", "https://", "::::",
        "mailto:someone@example.com", "javascript:alert(1)", "\x00\x01", "http://exa mple.com/%zz%", "h" * 5000,
        "https://example.com:" + "0" * 5000 + "1/", "https://ex\ud800ample.com/\udfff?\ud800=\udc00", "http://\ufdd0.com",
        "https://[0:1:2:3:4:5:6:7:8]/", "https://example.com:\u00b2/"]


@pytest.mark.parametrize("junk", JUNK)
def test_canonical_never_raises_on_junk(junk: str) -> None:
    assert isinstance(canonical(junk), str)


def test_canonical_is_cached_for_the_benchmark() -> None:
    # The benchmark calls canonical() millions of times on a small set of URLs (a run's own), and a
    # set of 8,000 runs (80,000 URLs) must not keep every one of them: cached, and bounded.
    assert 1024 <= (canonical.cache_info().maxsize or 0) <= 4096


# --------------------------------------------------------------------------------------------------
# host(), registered_domain(), is_under()
# --------------------------------------------------------------------------------------------------

HOSTS = [
    ("https://News.Example.COM/a", "news.example.com"),
    ("https://www.example.com/a", "example.com"),
    ("http://example.com:8080/a", "example.com"),
    ("https://user:pw@example.com/a", "example.com"),
    ("https://[::1]:8080/", "[::1]"),
    ("example.com", "example.com"),
    ("WWW.Example.com:443", "example.com"),
    ("https://\uff37\uff37\uff37.\uff25xample\u3002com/a", "example.com"),
    ("https://[0:0::1]/", "[::1]"),
    ("https://[::1/", "[::1"),
    # as browsers read them: a backslash ends the authority, a host ending in a number is an address
    ("https://attacker.example\\@www.nature.com/x", "attacker.example"),
    ("http://127.0.0.1:9000\\@127.0.0.1:9001/x", "127.0.0.1"),
    ("http:\\\\Example.com\\a", "example.com"),
    ("http:example.com/a", "example.com"),
    ("http://exa\tmple.com/", "example.com"),
    ("http://0x7f.1/", "127.0.0.1"),
    ("http://%65xample.com/", "example.com"),
    ("https://a@b@example.com/", "example.com"),
]


@pytest.mark.parametrize(("url", "expected"), HOSTS)
def test_host(url: str, expected: str) -> None:
    assert host(url) == expected


REGISTERED = [
    ("a subdomain of a multi-part public suffix", "news.bbc.co.uk", "bbc.co.uk"),
    ("the registered domain itself", "bbc.co.uk", "bbc.co.uk"),
    ("a URL is accepted", "https://www.news.bbc.co.uk/story", "bbc.co.uk"),
    ("github.io is a private public suffix", "alice.github.io", "alice.github.io"),
    ("... so each user is their own domain", "docs.bob.github.io", "bob.github.io"),
    ("an ordinary .com", "api.v2.example.com", "example.com"),
    ("an IPv4 address is itself", "http://192.168.0.1:8000/x", "192.168.0.1"),
    ("localhost is itself", "localhost", "localhost"),
    ("a bare public suffix is itself", "github.io", "github.io"),
    ("an IDNA host in punycode is its Unicode site", "news.xn--mnchen-3ya.de", "münchen.de"),
    ("... as is its Unicode spelling", "https://Sub.MÜNCHEN.de/x", "münchen.de"),
    ("a punycode public suffix too", "a.b.xn--p1ai", "b.рф"),
    ("a label that is not valid punycode is kept", "xn--zz-.example", "xn--zz-.example"),
    ("a full-width host with an ideographic full stop", "https://news.\uff22\uff22\uff23\u3002co.uk/", "bbc.co.uk"),
]


@pytest.mark.parametrize(("rule", "value", "expected"), REGISTERED, ids=[c[0] for c in REGISTERED])
def test_registered_domain(rule: str, value: str, expected: str) -> None:
    assert registered_domain(value) == expected


def test_a_lone_surrogate_in_a_host_reads_as_u_fffd() -> None:
    assert host("https://ex\ud800ample.com/") == "ex\ufffdample.com"
    assert registered_domain("https://news.ex\ud800ample.com/") == "ex\ufffdample.com"
    assert is_under("news.ex\ud800ample.com", "ex\ufffdample.com")


def test_github_io_users_are_different_sites() -> None:
    assert registered_domain("alice.github.io") != registered_domain("bob.github.io")


UNDER = [
    ("news.bbc.co.uk", "bbc.co.uk", True),
    ("bbc.co.uk", "bbc.co.uk", True),
    ("WWW.BBC.co.uk", "bbc.co.uk", True),
    ("bbc.co.uk", "www.bbc.co.uk", True),
    ("notbbc.co.uk", "bbc.co.uk", False),
    ("bbc.co.uk", "news.bbc.co.uk", False),
    ("bbc.co.uk.evil.com", "bbc.co.uk", False),
    ("example.com", "", False),
    ("news.xn--mnchen-3ya.de", "münchen.de", True),
    ("news.münchen.de", "xn--mnchen-3ya.de", True),
    ("news.\uff42\uff42\uff43\u3002co.uk", "bbc.co.uk", True),
]


@pytest.mark.parametrize(("host_name", "domain", "expected"), UNDER)
def test_is_under(host_name: str, domain: str, expected: bool) -> None:
    assert is_under(host_name, domain) is expected


# --------------------------------------------------------------------------------------------------
# extract_urls(): what an answer cites
# --------------------------------------------------------------------------------------------------

EXTRACT = [
    ("an inline link", "See [the docs](https://docs.python.org/3/).", ["https://docs.python.org/3/"]),
    ("an inline link with a title", 'See [docs](https://a.example/x "The docs").', ["https://a.example/x"]),
    ("an autolink", "See <https://a.example/x>.", ["https://a.example/x"]),
    ("a bare URL", "See https://a.example/x for more", ["https://a.example/x"]),
    ("a trailing period is sentence punctuation", "Read https://a.example/x.", ["https://a.example/x"]),
    ("a trailing comma is sentence punctuation", "Read https://a.example/x, then stop", ["https://a.example/x"]),
    ("trailing ?!:; and quotes are dropped", "Is it \"https://a.example/x\"?!", ["https://a.example/x"]),
    (
        "balanced parentheses stay in a bare URL",
        "See https://en.wikipedia.org/wiki/Python_(programming_language).",
        ["https://en.wikipedia.org/wiki/Python_(programming_language)"],
    ),
    (
        "balanced parentheses stay in a link",
        "[Python](https://en.wikipedia.org/wiki/Python_(programming_language))",
        ["https://en.wikipedia.org/wiki/Python_(programming_language)"],
    ),
    ("an unbalanced ) closes the prose", "(see https://example.com/a)", ["https://example.com/a"]),
    ("an unbalanced ] closes the prose", "[see https://example.com/a]", ["https://example.com/a"]),
    ("http://, not just https://", "Old: http://a.example/x", ["http://a.example/x"]),
    ("images are not citations", "![chart](https://img.example/c.png) and [x](https://a.example/)",
     ["https://a.example/"]),
    ("a linked image cites its link", "[![logo](https://img.example/l.png)](https://a.example/)",
     ["https://a.example/"]),
    ("fenced code is not cited", "```bash\ncurl https://api.example/v1\n```\nSee https://a.example/",
     ["https://a.example/"]),
    ("~~~ fences too", "~~~\nhttps://api.example/v1\n~~~\n", []),
    ("non-web links are ignored", "[mail](mailto:a@b.example) [rel](/docs/page)", []),
    (
        "first appearance order, de-duplicated by canonical form, first spelling kept",
        "A http://www.a.example/x/ then https://b.example and https://a.example/x#frag",
        ["http://www.a.example/x/", "https://b.example"],
    ),
    (
        "a reference definition counts, with or without a title",
        'Claim [one][r].\n\n[r]: https://a.example/1 "Title"\n[s]: <https://b.example/2>\n',
        ["https://a.example/1", "https://b.example/2"],
    ),
    (
        "[1]: reference definitions resolve numbered markers in order",
        "First [2], then [1].\n\n[1]: https://one.example/\n[2]: https://two.example/\n",
        ["https://two.example/", "https://one.example/"],
    ),
    (
        "markers point into a numbered sources list",
        "Fact [2]. Other fact [1].\n\nSources:\n1. https://one.example/\n2. https://two.example/\n",
        ["https://two.example/", "https://one.example/"],
    ),
    (
        "[2, 3] cites both, and a source only listed still counts",
        "Claim [2, 3].\n\nSources:\n1. https://one.example/\n2. https://two.example/\n3. https://three.example/",
        ["https://two.example/", "https://three.example/", "https://one.example/"],
    ),
    (
        "[^1] footnote markers",
        "Claim.[^2] More.[^1]\n\n[^1]: https://one.example/\n[^2]: https://two.example/\n",
        ["https://two.example/", "https://one.example/"],
    ),
    (
        "【1】 markers, including the 【1†source】 style",
        "Claim 【2†source】 and 【1】.\n\n[1] One - https://one.example/\n[2] Two - https://two.example/",
        ["https://two.example/", "https://one.example/"],
    ),
    (
        "sources listed as [n] Title - url",
        "Claim [2].\n\n[1] First page - https://one.example/\n[2] Second page - https://two.example/",
        ["https://two.example/", "https://one.example/"],
    ),
    (
        "sources listed as n. [Title](url)",
        "Claim [2].\n\n1. [First](https://one.example/)\n2. [Second](https://two.example/)",
        ["https://two.example/", "https://one.example/"],
    ),
    (
        "a marker with no source is ignored",
        "Claim [7] and [note].\n\n1. https://one.example/",
        ["https://one.example/"],
    ),
    ("no citations at all", "Python is a programming language. (3 + 4) [sic]", []),
    # GFM's rules for where a bare URL ends, and CommonMark's for what a link destination holds.
    (
        "a bare URL in a table cell ends at the cell's |",
        "| source | year |\n|---|---|\n| https://a.example/x| 2026 |\n|https://b.example/y|https://c.example/z|",
        ["https://a.example/x", "https://b.example/y", "https://c.example/z"],
    ),
    (
        "a link in a table cell keeps its title and parentheses",
        '| a | b |\n| --- | --- |\n| [x](https://a.example/x "t") | [y](https://b.example/y_(z)) |',
        ["https://a.example/x", "https://b.example/y_(z)"],
    ),
    ("outside a table a | is part of a bare URL", "See https://a.example/fonts?family=A|B now",
     ["https://a.example/fonts?family=A|B"]),
    ("trailing _ and ~ are emphasis, not the URL", "_https://a.example/x_ and ~~https://b.example/y~~",
     ["https://a.example/x", "https://b.example/y"]),
    ("a trailing ellipsis is prose", "See https://a.example/x\u2026 and https://b.example/y...",
     ["https://a.example/x", "https://b.example/y"]),
    ("an HTML-escaped autolink loses its &gt;", "See &lt;https://a.example/x&gt; and \"https://b.example/y&quot;",
     ["https://a.example/x", "https://b.example/y"]),
    ("an invisible character ends a bare URL", "See https://a.example/x\u200b\u2060, then https://b.example/\ufeffy",
     ["https://a.example/x", "https://b.example/"]),
    ("an & inside a bare URL stays", "https://a.example/s?a=1&b=2", ["https://a.example/s?a=1&b=2"]),
    ("backslash escapes in a link destination are resolved", "[x](https://a.example/a\\_b\\(c\\))",
     ["https://a.example/a_b(c)"]),
    ("entities in a link destination are decoded", "[x](https://a.example/s?a=1&amp;b=2)",
     ["https://a.example/s?a=1&b=2"]),
    ("... and in a reference definition", "Claim [1].\n\n[1]: https://a.example/a\\_b?c=1&amp;d=2",
     ["https://a.example/a_b?c=1&d=2"]),
    ("a lone surrogate in a URL reads as U+FFFD", "See https://a.example/x\ud800y.", ["https://a.example/x\ufffdy"]),
]


@pytest.mark.parametrize(("rule", "answer", "expected"), EXTRACT, ids=[c[0] for c in EXTRACT])
def test_extract_urls(rule: str, answer: str, expected: list[str]) -> None:
    assert extract_urls(answer) == expected


# --------------------------------------------------------------------------------------------------
# A lone surrogate in a cited URL: no UTF-8 report can hold it, so it reads as U+FFFD
# --------------------------------------------------------------------------------------------------

TRACE = Path(__file__).parent / "fixtures" / "runs" / "fabricated_url" / "fails" / "cites-url-no-result-showed.json"


@pytest.mark.parametrize("where", ["answer", "citations"])
def test_a_lone_surrogate_in_a_cited_url_is_reported_not_a_crash(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = json.loads(TRACE.read_text("utf-8"))
    url = "https://science.example.gov/jupiter/\ud800x"
    trace["answer"] = f"Jupiter has 95 moons [1].\n\n1. {url}\n"
    if where == "citations":
        trace["citations"] = [{"url": url}]
    path = tmp_path / "trace.json"
    # json.dumps writes the surrogate as the escape "\ud800", as a hostile trace would.
    path.write_text(json.dumps(trace), "utf-8")
    out = tmp_path / "report.json"
    assert main(["check", str(path), "--json", str(out), "--markdown", "-"]) == 1
    (failure,) = json.loads(out.read_text("utf-8"))["cases"][0]["hard_failures"]
    assert (failure["check"], failure["url"]) == ("fabricated_url", "https://science.example.gov/jupiter/\ufffdx")
    assert "jupiter/\ufffdx" in capsys.readouterr().out
