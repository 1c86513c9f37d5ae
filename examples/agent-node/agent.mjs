// A search agent in Node, gated by sourcegate without any sourcegate code: it asks the Anthropic
// Messages API (plain fetch, tool use), runs its web_search and read_page tools against
// $SOURCEGATE_REPLAY_URL, and prints its answer as one JSON object on stdout:
//
//   {"answer": "...", "citations": [{"url": "...", "quote": "..."}]}
//
// `sourcegate run GOLDEN -- node examples/agent-node/agent.mjs` assembles each case's trace from
// what the replay server answered it. Needs Node 18 or later (global fetch) and ANTHROPIC_API_KEY.
//
// Each answer is guarded first, by the replay server: POST $SOURCEGATE_REPLAY_URL/guard with the draft
// returns the gate's findings as JSON. A rejected draft is logged on stderr and the model is told which
// URLs were rejected and why (the reply's "message", as its final_answer call's result), so it may
// search, read and answer again: up to three drafts, each an attempt of the case's trace. --no-guard
// prints the first answer as the model gave it.

const replay = process.env.SOURCEGATE_REPLAY_URL;
const question = process.env.SOURCEGATE_QUESTION;
const api = (process.env.ANTHROPIC_BASE_URL || "https://api.anthropic.com").replace(/\/$/, "");
const model = process.env.AGENT_MODEL || "claude-sonnet-4-5";
const provider = process.env.AGENT_SEARCH_PROVIDER || "trace";
const guarded = !process.argv.includes("--no-guard");
const maxDrafts = 3;

const tools = [
  { name: "web_search", description: "Search the web; returns titles, URLs and snippets.",
    input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
  { name: "read_page", description: "Read the main text of a web page.",
    input_schema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } },
  { name: "final_answer", description: "Give the final answer, citing the pages it rests on.",
    input_schema: { type: "object", required: ["answer", "citations"], properties: {
      answer: { type: "string" },
      citations: { type: "array", items: { type: "object", required: ["url"],
        properties: { url: { type: "string" }, quote: { type: "string" } } } } } } },
];

async function web(path, params) {
  const response = await fetch(`${replay}${path}?${new URLSearchParams(params)}`);
  if (!response.ok) throw new Error(`${path} failed with HTTP ${response.status}`);
  return response.json();
}

const run = {
  web_search: async ({ query }) => {
    const found = await web("/search", { provider, q: query });
    return JSON.stringify((found.results || []).map(({ title, url, snippet }) => ({ title, url, snippet })));
  },
  read_page: async ({ url }) => (await web("/extract", { url })).text.slice(0, 8000),
};

async function ask(messages) {
  const response = await fetch(`${api}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": process.env.ANTHROPIC_API_KEY,
               "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model, max_tokens: 2048, tools, messages,
      system: "Answer the question from the web. Search, read the pages you rely on, then call " +
              "final_answer with each citation's URL and a short verbatim quote from the page." }),
  });
  if (!response.ok) throw new Error(`Messages API: HTTP ${response.status}: ${await response.text()}`);
  return response.json();
}

// The gate's hard checks on a draft, against what this case was served so far.
async function guard(draft) {
  const response = await fetch(`${replay}/guard`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(draft) });
  if (!response.ok) throw new Error(`/guard failed with HTTP ${response.status}: ${await response.text()}`);
  return response.json();
}

const messages = [{ role: "user", content: question }];
let drafts = 0;
for (let turn = 0; turn < 8 * maxDrafts; turn++) {
  const reply = await ask(messages);
  messages.push({ role: "assistant", content: reply.content });
  const results = [];
  for (const block of reply.content) {
    if (block.type !== "tool_use") continue;
    if (block.name === "final_answer") {
      drafts++;
      const verdict = guarded ? await guard(block.input) : { passed: true };
      if (verdict.passed || drafts === maxDrafts) {  // given up: the last draft as it is, the gate reports it
        if (!verdict.passed) console.error(`guard: gave up after ${drafts} drafts`);
        process.stdout.write(JSON.stringify(block.input) + "\n");
        process.exit(0);
      }
      for (const f of verdict.findings) console.error(`guard: draft ${drafts} rejected ${f.url || "the answer"}: ${f.check}`);
      results.push({ type: "tool_result", tool_use_id: block.id, content: verdict.message, is_error: true });
      continue;
    }
    try {
      results.push({ type: "tool_result", tool_use_id: block.id, content: await run[block.name](block.input) });
    } catch (error) {
      results.push({ type: "tool_result", tool_use_id: block.id, content: `error: ${error.message}`, is_error: true });
    }
  }
  if (results.length === 0) throw new Error("the model stopped without calling final_answer");
  messages.push({ role: "user", content: results });
}
throw new Error(`no final answer after ${8 * maxDrafts} turns`);
