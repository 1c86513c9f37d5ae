// An agent with Node's fetch at the real addresses: Bing's API at its own host, then each page at its own
// URL, as a team writes it (no base URL, nothing of sourcegate). Its plan is $SDK_AGENT_PLAN's, by case,
// as the Python agents' (common.py); a page read with a status other than 200 is said in the answer.
const steps = JSON.parse(process.env.SDK_AGENT_PLAN)[process.env.SOURCEGATE_CASE];
for (const q of steps.search) {
  const reply = await fetch("https://api.bing.microsoft.com/v7.0/search?" + new URLSearchParams({ q }),
    { headers: { "Ocp-Apim-Subscription-Key": "bing-replay" } });
  if (!reply.ok) throw new Error(`Bing answered ${reply.status}`);
  await reply.json();
}
const errors = [];
for (const url of steps.read) {
  const page = await fetch(url);
  await page.text();
  if (page.status !== 200) errors.push(`HTTP ${page.status}: ${url}`);
}
const text = steps.answer + errors.map((e) => `\nSDK error: ${e}`).join("");
console.log(JSON.stringify({ answer: text, ...(steps.citations ? { citations: steps.citations } : {}) }));
