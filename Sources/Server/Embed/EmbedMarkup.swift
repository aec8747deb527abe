import GifxKit
import GifxTimeline

/// The HTML to paste for one animation (`gifx embed`, `GET /v1/embed`): a `<video autoplay muted playsinline>` with
/// AV1 (MP4), VP9 (WebM) and H.264 (MP4) sources in that order, a poster, width and height, and inside it, for a
/// browser that plays no video, a `<picture>` with AVIF and WebP sources and the GIF itself as the `<img>`. Every
/// rendition is a signed URL, converted when a browser first asks for it; nothing is converted to write this.
///
/// The loop count is the schedule's: forever is the `loop` attribute; N plays is no `loop` and a small inline script
/// that starts the video again N − 1 times on `ended` (the count in `data-gifx-plays`); one play is neither.
/// Every value written is escaped (`MarkupText`).
package struct EmbedMarkup: Sendable {
    /// One rendition of a `<source>`: the signed URL's options (`format:mp4`) and the `type` attribute's value.
    package struct Rendition: Sendable, Equatable {
        package var options: [String]
        package var type: String
    }

    /// The GIF's schedule (its canvas gives width and height, its loop the plays).
    package let timeline: Timeline
    /// The source's URL: the `<img>` fallback's `src`, and what every signed URL converts.
    package let source: String
    /// The `<img>`'s text alternative.
    package let alt: String
    package let signer: SignedURLMaker

    package init(timeline: Timeline, source: String, alt: String, signer: SignedURLMaker) {
        self.timeline = timeline
        self.source = source
        self.alt = alt
        self.signer = signer
    }

    /// The video's sources, in the order a browser should try them: AV1 (smallest), VP9, then H.264 (everywhere).
    /// The `codecs` levels are those the renditions need at the canvas size (padded to even) and the tick's rate,
    /// at which the service converts by default.
    package var videoRenditions: [Rendition] {
        let width = timeline.canvas.width + timeline.canvas.width % 2
        let height = timeline.canvas.height + timeline.canvas.height % 2
        let fps = timeline.tick.fps
        let h264 = H264Level.required(width: width, height: height, fps: fps).levelIDC
        let av1 = Self.av1LevelIndex(width: width, height: height, fps: fps)
        return [
            Rendition(
                options: ["format:mp4", "codec:av1"],
                type: "video/mp4; codecs=\"av01.0.\(Self.twoDigits(av1))M.08\""),
            Rendition(options: ["format:webm"], type: "video/webm; codecs=\"vp9\""),
            Rendition(
                options: ["format:mp4"],
                type: "video/mp4; codecs=\"avc1.6400\(Self.hex(h264))\""),
        ]
    }

    /// The `<picture>`'s sources: AVIF, then WebP; the GIF itself is the `<img>`.
    package static let pictureRenditions = [
        Rendition(options: ["format:avif"], type: "image/avif"),
        Rendition(options: ["format:webp"], type: "image/webp"),
    ]

    /// The poster: the first frame as a JPEG.
    package static let poster = ["format:jpg"]

    /// The script that replays a video of N plays N − 1 times: it reads the count from the video just before it.
    package static let replayScript =
        "<script>(function(v){var n=+v.getAttribute(\"data-gifx-plays\");v.addEventListener(\"ended\",function(){"
        + "if(--n>0){v.currentTime=0;v.play();}});})(document.currentScript.previousElementSibling);</script>"

    private func url(_ options: [String]) -> String {
        MarkupText.escaped(signer.url(options: options, source: source))
    }

    /// The markup, a fragment ending in a line break.
    package var html: String {
        let width = timeline.canvas.width, height = timeline.canvas.height
        let plays = timeline.loop.plays
        var video = "<video autoplay muted playsinline"
        if plays == nil { video += " loop" }
        video += " width=\"\(width)\" height=\"\(height)\" poster=\"\(url(Self.poster))\""
        if let plays, plays > 1 { video += " data-gifx-plays=\"\(plays)\"" }
        var out = video + ">\n"
        for rendition in videoRenditions {
            out += "<source src=\"\(url(rendition.options))\" type=\"\(MarkupText.escaped(rendition.type))\">\n"
        }
        out += "<picture>\n"
        for rendition in Self.pictureRenditions {
            out += "<source srcset=\"\(url(rendition.options))\" type=\"\(MarkupText.escaped(rendition.type))\">\n"
        }
        out += "<img src=\"\(MarkupText.escaped(source))\" width=\"\(width)\" height=\"\(height)\" "
            + "alt=\"\(MarkupText.escaped(alt))\">\n</picture>\n</video>\n"
        if let plays, plays > 1 { out += Self.replayScript + "\n" }
        return out
    }

    /// AV1's `seq_level_idx` (Annex A.3) for pictures of `width`×`height` shown `fps` times a second: the first level
    /// whose MaxPicSize, MaxHSize, MaxVSize and MaxDisplayRate hold them (31: beyond the table, no limit).
    package static func av1LevelIndex(width: Int, height: Int, fps: Rational) -> Int {
        // (seq_level_idx, MaxPicSize, MaxHSize, MaxVSize, MaxDisplayRate)
        let levels: [(Int, Int, Int, Int, Int)] = [
            (0, 147_456, 2048, 1152, 4_423_680), (1, 278_784, 2816, 1584, 8_363_520),
            (4, 665_856, 4352, 2448, 19_975_680), (5, 1_065_024, 5504, 3096, 31_950_720),
            (8, 2_359_296, 6144, 3456, 70_778_880), (9, 2_359_296, 6144, 3456, 141_557_760),
            (12, 8_912_896, 8192, 4352, 267_386_880), (13, 8_912_896, 8192, 4352, 534_773_760),
            (14, 8_912_896, 8192, 4352, 1_069_547_520), (15, 8_912_896, 8192, 4352, 1_069_547_520),
            (16, 35_651_584, 16384, 8704, 1_069_547_520), (17, 35_651_584, 16384, 8704, 2_139_095_040),
            (18, 35_651_584, 16384, 8704, 4_278_190_080), (19, 35_651_584, 16384, 8704, 4_278_190_080),
        ]
        let samples = width * height
        for (index, picture, maxWidth, maxHeight, rate) in levels
        where samples <= picture && width <= maxWidth && height <= maxHeight
            && samples * fps.num <= rate * max(1, fps.den)
        {
            return index
        }
        return 31
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func hex(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[(value >> 4) & 15], digits[value & 15]])
    }
}
