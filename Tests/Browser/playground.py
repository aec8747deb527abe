"""Mode `playground` of the browser check (issue 60): `gifx serve --playground` with a bearer token and a signing key,
its page loaded in the browser, the token typed into its field, and a fixture GIF dropped on it (a synthetic `drop`
event whose DataTransfer holds a File named with markup). Passes when every output plays (a video: readyState >= 2
and currentTime advancing, with timeupdate events; an image: decoded, naturalWidth > 0), the timeline picture has
one bar per frame, the embed code of the fixture at the page server's URL is shown, the file's name reads back as
text (no element or script made from it), and nothing was reported: no console error (Chromium's browser log;
Firefox's WebDriver BiDi log.entryAdded), no uncaught error or rejection, no Content-Security-Policy violation (a
hook the test adds to the page)."""

import base64
import json
import os

import fixtures
import service

FIXTURE = "timing-mix"
TOKEN = "playground-check-token-0123456789"
# The dropped file's name: markup that would run or make elements if it were ever inserted as HTML.
FILE_NAME = "\"><img src=x onerror=\"window.gifxPwned=1\"><script>window.gifxPwned=1</script>.gif"

# Added once the page has loaded: collects uncaught errors, rejections, CSP violations and console errors.
HOOK = """
async () => {
window.gifxProblems = [];
const note = (kind, text) => window.gifxProblems.push(`${kind}: ${text}`);
window.addEventListener("error", (e) => note("error", e.message || String(e.target && e.target.src)), true);
window.addEventListener("unhandledrejection", (e) => note("unhandled rejection", String(e.reason)));
document.addEventListener("securitypolicyviolation", (e) => note("CSP", `${e.violatedDirective} ${e.blockedURI}`));
const consoleError = console.error.bind(console);
console.error = (...args) => { note("console.error", args.map(String).join(" ")); consoleError(...args); };
return "ok";
}
"""

# Types the token, drops the file, asks for the embed code, and resolves with what the page shows once every output,
# the picture and the embed are done (or 240 s passed).
DROP_AND_WATCH = """
async (gifBase64, fileName, embedSource) => {
  const $ = (id) => document.getElementById(id);
  const token = $("token");
  token.value = %(token)s;
  token.dispatchEvent(new Event("change"));
  const bytes = Uint8Array.from(atob(gifBase64), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], fileName, { type: "image/gif" }));
  $("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  $("embed-source").value = embedSource;
  $("embed-form").requestSubmit();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const began = performance.now();
  const settled = () => {
    const cards = [...document.querySelectorAll("#outputs .output")];
    return cards.length > 0 && cards.every((c) => c.dataset.state) && $("timeline").dataset.state && $("embed").dataset.state;
  };
  while (!settled() && performance.now() - began < 240000) await sleep(100);
  const outputs = [];
  for (const card of document.querySelectorAll("#outputs .output")) {
    const player = card.querySelector(".player");
    const row = { format: card.dataset.format, state: card.dataset.state || "pending", bytes: Number(card.dataset.bytes || 0),
                  ms: Number(card.dataset.milliseconds || 0), text: card.textContent, kind: player ? player.localName : "none" };
    if (player && player.localName === "video") {
      // Give it up to 10 s to start, then watch it for 1.5 s.
      const start = performance.now();
      while (player.readyState < 2 && performance.now() - start < 10000) await sleep(50);
      let updates = 0;
      const count = () => updates++;
      player.addEventListener("timeupdate", count);
      const t0 = player.currentTime;
      await sleep(1500);
      player.removeEventListener("timeupdate", count);
      Object.assign(row, { readyState: player.readyState, t0, t1: player.currentTime, updates, paused: player.paused,
                           error: player.error ? player.error.code : null });
    } else if (player) {
      const start = performance.now();
      while (!(player.complete && player.naturalWidth > 0) && performance.now() - start < 10000) await sleep(50);
      Object.assign(row, { naturalWidth: player.naturalWidth, complete: player.complete });
    }
    outputs.push(row);
  }
  return JSON.stringify({
    outputs,
    timelineState: $("timeline").dataset.state || "pending",
    timelineLine: $("timeline-line").textContent,
    bars: document.querySelectorAll("#timeline svg.schedule rect.frame").length,
    pictureTitle: (document.querySelector("#timeline svg > title") || {}).textContent || "",
    inputLine: $("input-line").textContent,
    embedState: $("embed").dataset.state || "pending",
    embed: $("embed").textContent,
    embedLine: $("embed-line").textContent,
    scripts: document.scripts.length,
    planted: document.querySelectorAll("img[src='x'], #outputs script, #timeline script, #input-line *").length,
    pwned: window.gifxPwned === 1,
    problems: window.gifxProblems,
  });
}
""" % {"token": json.dumps(TOKEN)}


def start_service(gifx, out, origin, embed_key):
    """`gifx serve --playground` on a free port, with a token and a signing key whose origin is the page server."""
    token_file, key_file = os.path.join(out, "playground.token"), os.path.join(out, "playground.key")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    with open(key_file, "w") as f:
        f.write(embed_key + "\n")
    return service.start(
        gifx, out, "playground-cache", "playground-serve.log",
        ["--playground", "--token-file", token_file, "--signing-key-file", key_file, "--origin", origin],
        name="gifx serve --playground")


def open_chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # The browsers' default autoplay policies: the page's videos are muted, which both allow without a gesture.
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(300)
    script = "const done = arguments[arguments.length - 1]; (%s)(...Array.from(arguments).slice(0, -1)).then(done, (e) => done(JSON.stringify({failed: String(e)})));"

    def call(function, *args):
        return driver.execute_async_script(script % function, *args)

    def console_errors():
        return [(e["level"] == "SEVERE", f"{e['level']} {e['message']}") for e in driver.get_log("browser")
                if e["level"] in ("SEVERE", "WARNING")]

    return driver.get, call, console_errors, driver.quit, f"Chromium {driver.capabilities.get('browserVersion')}"


def open_firefox():
    import bidi
    ff = bidi.Firefox()
    ff.subscribe(["log.entryAdded"])

    def console_errors():
        ff.call("async () => 'drained'")  # the events sent before this answer are read with it
        return [(e["params"].get("level") == "error", f"{e['params'].get('level')} {e['params'].get('text')}") for e in ff.events
                if e.get("method") == "log.entryAdded" and e["params"].get("level") in ("error", "warn")]

    return ff.navigate, ff.call, console_errors, ff.close, f"Firefox {ff.capabilities.get('browserVersion')}"


def check(browser, port, base, gif_dir):
    """Runs the playground in `browser`; returns (table lines, failed)."""
    with open(os.path.join(gif_dir, FIXTURE + ".gif"), "rb") as f:
        gif = base64.b64encode(f.read()).decode()
    frames = len(fixtures.FIXTURES[FIXTURE][0])
    navigate, call, console_errors, close, version = open_chromium() if browser == "chromium" else open_firefox()
    problems = []
    try:
        navigate(f"http://127.0.0.1:{port}/playground")
        call(HOOK)
        r = json.loads(call(DROP_AND_WATCH, gif, FILE_NAME, f"{base}/gifs/{FIXTURE}.gif"))
        logged = console_errors()
    finally:
        close()
    if "failed" in r:
        return [f"playground ({version}): the check's script failed: {r['failed']}"], True
    lines = [f"playground ({version}): {FIXTURE}.gif dropped as a file named {json.dumps(FILE_NAME)}",
             "| output | shown as | bytes | time (ms, in the page) | playing | result |", "|---|---|---:|---:|---|---|"]
    if len(r["outputs"]) < 5:
        problems.append(f"{len(r['outputs'])} outputs shown, expected 5 (mp4, webm, avif, webp, apng)")
    for o in r["outputs"]:
        bad = []
        if o["state"] != "done":
            bad.append(f"{o['state']}: {o['text']}")
        if o["kind"] == "video":
            playing = f"readyState {o['readyState']}, currentTime {o['t0']:.3f} -> {o['t1']:.3f}, {o['updates']} timeupdate"
            if o["readyState"] < 2 or o["t1"] == o["t0"] or o["updates"] < 2 or o["paused"] or o["error"]:
                bad.append("not playing")
        elif o["kind"] == "img":
            playing = f"naturalWidth {o['naturalWidth']}"
            if not o["complete"] or o["naturalWidth"] != fixtures.WIDTH:
                bad.append("not decoded")
        else:
            playing = "–"
            bad.append("no player")
        if o["bytes"] <= 0:
            bad.append("no bytes shown")
        problems += [f"{o['format']}: {b}" for b in bad]
        lines.append(f"| {o['format']} | {o['kind']} | {o['bytes']} | {o['ms']} | {playing} | {'; '.join(bad) or 'pass'} |")
    if r["timelineState"] != "done" or r["bars"] != frames:
        problems.append(f"timeline: {r['timelineState']}, {r['bars']} bars for {frames} frames ({r['timelineLine']})")
    if r["pictureTitle"] != FILE_NAME:
        problems.append(f"the picture's title reads {r['pictureTitle']!r}")
    if r["embedState"] != "done" or "<video" not in r["embed"] or "/v1/" not in r["embed"]:
        problems.append(f"embed: {r['embedState']}: {r['embedLine']}")
    if not r["inputLine"].startswith(FILE_NAME + ":"):
        problems.append(f"the file's name reads {r['inputLine']!r}")
    if r["pwned"] or r["planted"] or r["scripts"] != 1:
        problems.append(f"the file's name became markup: {r['planted']} planted elements, {r['scripts']} scripts, ran: {r['pwned']}")
    problems += [f"page: {p}" for p in r["problems"]]
    problems += [f"console: {text}" for error, text in logged if error]
    warnings = [f"console (a warning, not failing): {text}" for error, text in logged if not error]
    lines.append(f"timeline: {r['bars']} bars for {frames} frames; embed: {len(r['embed'])} characters of markup; "
                 f"console errors and page problems: {len(problems)}; console warnings: {len(warnings)}")
    lines += [f"   {p}" for p in problems + warnings]
    lines.append(f"playground ({version}): {'FAIL' if problems else 'pass'}")
    return lines, bool(problems)
