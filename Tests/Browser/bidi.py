"""A minimal WebDriver BiDi client for Firefox's built-in remote agent (Debian 12 packages no geckodriver).

Firefox started with --remote-debugging-port=PORT accepts a BiDi session on ws://127.0.0.1:PORT/session.
Only what the browser check needs: a session, the top-level context, navigate, call an async function, and the
events of a subscription kept in `events` (the playground mode's console log).
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import websocket  # websocket-client (PyPI)


class Firefox:
    def __init__(self, binary="firefox-esr", port=9333, prefs=None):
        self.profile = tempfile.mkdtemp(prefix="gifx-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for key, value in (prefs or {}).items():
                f.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-remote", "--profile", self.profile,
             f"--remote-debugging-port={port}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.events = []
        deadline = time.monotonic() + 60
        while True:
            try:
                # no Origin header: Firefox refuses a handshake whose Origin is not allowed
                self.ws = websocket.create_connection(
                    f"ws://127.0.0.1:{port}/session", timeout=600, suppress_origin=True)
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise RuntimeError("Firefox's WebDriver BiDi endpoint did not come up")
                time.sleep(0.3)
        self.capabilities = self.send("session.new", {"capabilities": {}})["capabilities"]
        self.context = self.send("browsingContext.getTree", {})["contexts"][0]["context"]

    def send(self, method, params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") != self.next_id:
                if "method" in message and "id" not in message:  # an event
                    self.events.append(message)
                continue
            if message.get("type") == "error" or "error" in message:
                raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    def subscribe(self, events):
        """Keeps these events (e.g. log.entryAdded) in `events` from now on, as they arrive during later commands."""
        self.send("session.subscribe", {"events": events})

    def navigate(self, url):
        self.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def call(self, function, *args):
        """Awaits `function` (JS source of an async function taking strings) and returns its string result."""
        result = self.send("script.callFunction", {
            "functionDeclaration": function, "awaitPromise": True, "target": {"context": self.context},
            "arguments": [{"type": "string", "value": a} for a in args]})
        if result.get("type") == "exception":
            raise RuntimeError(json.dumps(result.get("exceptionDetails"))[:500])
        return result["result"]["value"]

    def close(self):
        try:
            self.send("session.end", {})
        except Exception:
            pass
        try:
            self.ws.close()
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
