import Crypto
import Foundation
import GifxTimeline

/// The playground (`gifx serve --playground`, GET /playground): one self-contained HTML page, its style and script
/// inline, nothing loaded from elsewhere. A dropped or chosen input is sent to the service's own routes: each
/// animated output the registry serves (POST /v1/convert, played side by side with its bytes and the time the page
/// waited for it), its schedule as a picture (POST /v1/timeline?format=svg, `TimelinePicture`), and, where the
/// service signs URLs, the embed code of the animation at a URL (GET /v1/embed). The service's settings reach the
/// script as data attributes of `<body>`; the script inserts every name and value as text (`textContent`,
/// attributes set one by one), and the picture as a parsed SVG document, never as markup.
package struct PlaygroundPage: Sendable {
    /// One output shown: the registry's name (`format=`) and media type.
    package struct Output: Sendable, Equatable {
        package var format: String
        package var mediaType: String
        package init(format: String, mediaType: String) {
            self.format = format; self.mediaType = mediaType
        }
    }

    package var outputs: [Output]
    /// The service asks for `Authorization: Bearer`: the page asks for the token.
    package var requiresToken: Bool
    /// GET /v1/embed is on (a signing key is configured).
    package var signsURLs: Bool
    /// `--max-body`: the page refuses a larger file before sending it.
    package var maxBodyBytes: Int

    package init(outputs: [Output], requiresToken: Bool, signsURLs: Bool, maxBodyBytes: Int) {
        self.outputs = outputs; self.requiresToken = requiresToken; self.signsURLs = signsURLs
        self.maxBodyBytes = maxBodyBytes
    }

    /// The page as HTML5 text.
    package var html: String {
        let formats = outputs.map { "\($0.format) \($0.mediaType)" }.joined(separator: ",")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>gifx playground</title>
            <link rel="icon" href="data:,">
            <style>\(Self.style)</style>
            </head>
            <body data-formats="\(MarkupText.escaped(formats))" data-token="\(requiresToken ? "1" : "0")" \
            data-signing="\(signsURLs ? "1" : "0")" data-max-body="\(maxBodyBytes)">
            <h1>gifx playground</h1>
            <section id="token-section" hidden>
            <label>Bearer token <input id="token" type="password" autocomplete="off" spellcheck="false"></label>
            <button id="forget-token" type="button">Forget</button>
            <p class="note">This service needs <code>Authorization: Bearer</code>. The token is kept in this tab only \
            (sessionStorage) and sent to this service alone.</p>
            </section>
            <section id="drop" tabindex="0">
            <p>Drop a GIF, animated WebP, APNG or AVIF here, or <label class="pick">choose one \
            <input id="file" type="file" accept="image/gif,image/webp,image/png,image/apng,image/avif"></label>.</p>
            <p class="note" id="limit"></p>
            </section>
            <p id="input-line" class="note"></p>
            <p id="problem" role="alert"></p>
            <h2>Outputs</h2>
            <div id="outputs" class="outputs"></div>
            <h2>Timeline</h2>
            <p id="timeline-line" class="note"></p>
            <div id="timeline"></div>
            <h2>Embed</h2>
            <section id="embed-section">
            <p id="embed-off" class="note" hidden>Embeds are off: this service has no signing key \
            (<code>--signing-key-file</code> and <code>--origin</code>).</p>
            <form id="embed-form" hidden>
            <label>Where the animation is published (a URL under one of the service's <code>--origin</code>) \
            <input id="embed-source" type="url" size="60" required></label>
            <button id="embed-go" type="submit">Embed code</button>
            </form>
            <p id="embed-line" class="note"></p>
            <pre id="embed"></pre>
            </section>
            <script>\(Self.script)</script>
            </body>
            </html>

            """
    }

    /// The page's `Content-Security-Policy`: its own script and style by hash, the picture's `<style>` by hash
    /// (`pictureStyle`), outputs from blob URLs, requests to this service only; nothing else.
    package func contentSecurityPolicy(pictureStyle: String?) -> String {
        let styles = ([Self.style] + (pictureStyle.map { [$0] } ?? [])).map { "'sha256-\(Self.hash($0))'" }
        return "default-src 'none'; script-src 'sha256-\(Self.hash(Self.script))'; style-src \(styles.joined(separator: " ")); "
            + "img-src 'self' blob: data:; media-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'none'"
    }

    /// The text of the `<style>` element `TimelinePicture` writes (the same for every picture), for the policy's hash.
    package static var pictureStyle: String? {
        let frame = FrameDescriptor(rawDelay: 10, rect: PixelRect(x: 0, y: 0, width: 1, height: 1))
        let timeline = Timeline(TimelineInput(canvas: CanvasSize(width: 1, height: 1), loopCount: 0, frames: [frame]))
        let svg = TimelinePicture(timeline: timeline, title: "").svg()
        guard let open = svg.range(of: "<style>"), let close = svg.range(of: "</style>", range: open.upperBound..<svg.endIndex)
        else { return nil }
        return String(svg[open.upperBound..<close.lowerBound])
    }

    static func hash(_ text: String) -> String {
        Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }

    static let style = """
        body{font:14px sans-serif;margin:1.5em;color:#222;max-width:1200px}h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}
        #drop{border:2px dashed #888;border-radius:6px;padding:1em;text-align:center}#drop.over{background:#eef5ff;border-color:#36c}
        .note{color:#555}#problem{color:#b00}pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap;word-break:break-all}
        .outputs{display:flex;flex-wrap:wrap;gap:12px}.output{border:1px solid #ccc;border-radius:6px;padding:8px;width:280px}
        .output h3{font-size:1em;margin:0 0 4px}.output video,.output img{display:block;max-width:100%;background:#eee}
        .output .figures{font-variant-numeric:tabular-nums;margin:4px 0 0}.output.failed{border-color:#b00}
        #timeline svg{display:block;max-width:100%;height:auto}
        """

    static let script = #"""
        "use strict";
        (() => {
          const settings = document.body.dataset;
          const $ = (id) => document.getElementById(id);
          const formats = settings.formats.split(",").filter(Boolean).map((pair) => {
            const [format, mediaType] = pair.split(" ");
            return { format, mediaType };
          });
          const maxBody = Number(settings.maxBody);
          const blobURLs = [];
          let run = 0;

          const bytes = (n) => n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(2)} MiB`;
          $("limit").textContent = `At most ${bytes(maxBody)} (the service's --max-body).`;

          // The token: asked for when the service has one, kept in this tab's sessionStorage at most.
          const tokenField = $("token");
          if (settings.token === "1") {
            $("token-section").hidden = false;
            tokenField.value = sessionStorage.getItem("gifx-token") || "";
            tokenField.addEventListener("change", () => sessionStorage.setItem("gifx-token", tokenField.value));
            $("forget-token").addEventListener("click", () => { sessionStorage.removeItem("gifx-token"); tokenField.value = ""; });
          }
          const headers = () => {
            const h = {};
            if (settings.token === "1" && tokenField.value) h.Authorization = `Bearer ${tokenField.value}`;
            return h;
          };
          // A failed answer as one line: the service's JSON error, else the status.
          const failure = async (response) => {
            let text = `${response.status}`;
            try {
              const body = await response.json();
              text = `${response.status} ${body.code}: ${body.message}`;
            } catch (_) { /* not JSON */ }
            if (response.status === 401) text += settings.token === "1" ? " (give the service's token above)" : "";
            return text;
          };
          const line = (parent, tag, text, className) => {
            const element = document.createElement(tag);
            element.textContent = text;
            if (className) element.className = className;
            parent.append(element);
            return element;
          };

          const convert = async (file, output, card, current) => {
            const status = line(card, "p", "converting…", "figures");
            const started = performance.now();
            try {
              const response = await fetch(`/v1/convert?format=${encodeURIComponent(output.format)}`, {
                method: "POST", body: file, headers: { ...headers(), "Content-Type": "application/octet-stream" } });
              if (!response.ok) throw new Error(await failure(response));
              const blob = await response.blob();
              const elapsed = performance.now() - started;
              if (current !== run) return;
              const url = URL.createObjectURL(blob);
              blobURLs.push(url);
              let player;
              if (output.mediaType.startsWith("video/")) {
                player = document.createElement("video");
                player.muted = true; player.loop = true; player.autoplay = true; player.playsInline = true;
                player.setAttribute("muted", ""); player.setAttribute("playsinline", "");
                player.src = url;
                player.play().catch(() => { /* autoplay refused: the controls start it */ });
                player.controls = true;
              } else {
                player = document.createElement("img");
                player.alt = `${output.format} output`;
                player.src = url;
              }
              player.className = "player";
              card.insertBefore(player, status);
              status.textContent = `${bytes(blob.size)} (${blob.size} bytes), ${Math.round(elapsed)} ms`;
              status.title = "bytes of the answer; the time from sending the input to the last byte, measured in this page";
              card.dataset.bytes = String(blob.size);
              card.dataset.milliseconds = String(Math.round(elapsed));
              card.dataset.state = "done";
            } catch (error) {
              if (current !== run) return;
              status.textContent = String(error.message || error);
              card.classList.add("failed");
              card.dataset.state = "failed";
            }
          };

          const drawTimeline = async (file, current) => {
            const target = $("timeline");
            $("timeline-line").textContent = "drawing…";
            try {
              const response = await fetch(`/v1/timeline?format=svg&title=${encodeURIComponent(file.name)}`, {
                method: "POST", body: file, headers: { ...headers(), "Content-Type": "application/octet-stream" } });
              if (!response.ok) throw new Error(await failure(response));
              const parsed = new DOMParser().parseFromString(await response.text(), "image/svg+xml");
              if (parsed.querySelector("parsererror") || parsed.documentElement.localName !== "svg") throw new Error("the picture did not parse");
              if (current !== run) return;
              const picture = document.importNode(parsed.documentElement, true);
              target.replaceChildren(picture);
              const bars = picture.querySelectorAll("svg.schedule rect.frame").length;
              $("timeline-line").textContent = `${bars} frame${bars === 1 ? "" : "s"} drawn, each as wide as its delay (hover a bar for its rule).`;
              target.dataset.frames = String(bars);
              target.dataset.state = "done";
            } catch (error) {
              if (current !== run) return;
              $("timeline-line").textContent = String(error.message || error);
              target.dataset.state = "failed";
            }
          };

          const take = async (file) => {
            if (!file) return;
            run += 1;
            const current = run;
            while (blobURLs.length) URL.revokeObjectURL(blobURLs.pop());
            $("problem").textContent = "";
            $("outputs").replaceChildren();
            $("timeline").replaceChildren();
            delete $("timeline").dataset.state;
            $("input-line").textContent = `${file.name}: ${bytes(file.size)}`;
            if (file.size > maxBody) {
              $("problem").textContent = `${file.name} is ${bytes(file.size)}, over the service's limit of ${bytes(maxBody)}.`;
              return;
            }
            const cards = formats.map((output) => {
              const card = document.createElement("div");
              card.className = "output";
              card.dataset.format = output.format;
              line(card, "h3", `${output.format} (${output.mediaType})`);
              $("outputs").append(card);
              return [output, card];
            });
            const picture = drawTimeline(file, current);
            // One at a time, so each time is its own conversion's, not a share of the machine.
            for (const [output, card] of cards) await convert(file, output, card, current);
            await picture;
          };

          const drop = $("drop");
          drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
          drop.addEventListener("dragleave", () => drop.classList.remove("over"));
          drop.addEventListener("drop", (event) => {
            event.preventDefault();
            drop.classList.remove("over");
            take(event.dataTransfer && event.dataTransfer.files[0]);
          });
          $("file").addEventListener("change", (event) => take(event.target.files[0]));

          // The embed code of the animation where it is published: GET /v1/embed reads it there.
          if (settings.signing === "1") {
            $("embed-form").hidden = false;
            $("embed-form").addEventListener("submit", async (event) => {
              event.preventDefault();
              const source = $("embed-source").value;
              $("embed").textContent = "";
              $("embed-line").textContent = "asking…";
              try {
                const response = await fetch(`/v1/embed?source=${encodeURIComponent(source)}`, { headers: headers() });
                if (!response.ok) throw new Error(await failure(response));
                $("embed").textContent = await response.text();
                $("embed-line").textContent = "Paste this where the animation goes; each source is converted when a browser first asks for it.";
                $("embed").dataset.state = "done";
              } catch (error) {
                $("embed-line").textContent = String(error.message || error);
                $("embed").dataset.state = "failed";
              }
            });
          } else {
            $("embed-off").hidden = false;
          }
        })();
        """#
}
