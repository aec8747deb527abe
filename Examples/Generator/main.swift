// Writes the GIFs in Examples/ with giflib's encoder (through GifFixtures), so every byte of them
// is stated here: `make examples` regenerates them. Each one has timing that other converters get wrong.
import Foundation
import GifFixtures

/// A 256-colour palette: a 6×6×6 colour cube plus greys, so drawings can use any rough colour.
let cube: [RGB] = {
    var colors: [RGB] = []
    for i in 0..<216 {
        let r = UInt8(i / 36 * 51), g = UInt8(i / 6 % 6 * 51), b = UInt8(i % 6 * 51)
        colors.append(RGB(r, g, b))
    }
    for i in 0..<40 {
        let v = UInt8(i * 255 / 39)
        colors.append(RGB(v, v, v))
    }
    return colors
}()

func cubeIndex(_ r: Int, _ g: Int, _ b: Int) -> UInt8 { UInt8(r / 51 * 36 + g / 51 * 6 + b / 51) }

/// A disc of `color` on `background` in a w×h image.
func disc(width: Int, height: Int, cx: Double, cy: Double, radius: Double, color: UInt8, background: UInt8) -> [UInt8] {
    var pixels = [UInt8](repeating: background, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let dx = Double(x) - cx, dy = Double(y) - cy
            if dx * dx + dy * dy <= radius * radius { pixels[y * width + x] = color }
        }
    }
    return pixels
}

/// bouncing-ball.gif: 96×64, 12 frames; the fast frames have 0 and 1 cs delays (raised to 10 cs by the
/// reference player), a 2 cs frame stays 2 cs, and the ball rests 1.5 s at the bottom. Loops forever.
func bouncingBall() -> FixtureGIF {
    let w = 96, h = 64
    let delays: [Int] = [0, 1, 0, 1, 2, 150, 3, 3, 4, 5, 6, 7]
    let sky = cubeIndex(153, 204, 255), ball = cubeIndex(255, 51, 0)
    let frames = delays.enumerated().map { i, delay -> FixtureFrame in
        let t = Double(i) / Double(delays.count)
        let cx = 12 + t * Double(w - 24)
        let cy = 12 + abs(sin(t * .pi * 2)) * Double(h - 24)
        return FixtureFrame(
            width: w, height: h,
            indices: disc(width: w, height: h, cx: cx, cy: cy, radius: 10, color: ball, background: sky),
            delay: delay)
    }
    return FixtureGIF(width: w, height: h, globalPalette: cube, loopCounts: [0], frames: frames)
}

/// missing-delays.gif: 80×48, 8 frames of a filling bar; frames 2, 3 and 6 have no Graphic Control
/// Extension (the reference player carries the previous delay over, browsers use 10 cs); frame 4 is a
/// 3 s pause. NETSCAPE loop count 2 (2 plays for FLAnimatedImage, 3 in browsers).
func missingDelays() -> FixtureGIF {
    let w = 80, h = 48
    let delays: [Int?] = [20, 5, nil, nil, 300, 7, nil, 40]
    let back = cubeIndex(255, 255, 255), bar = cubeIndex(0, 102, 204)
    let frames = delays.enumerated().map { i, delay -> FixtureFrame in
        let filled = (i + 1) * w / delays.count
        var pixels = [UInt8](repeating: back, count: w * h)
        for y in 16..<32 { for x in 0..<filled { pixels[y * w + x] = bar } }
        return FixtureFrame(width: w, height: h, indices: pixels, delay: delay)
    }
    return FixtureGIF(width: w, height: h, globalPalette: cube, loopCounts: [2], frames: frames)
}

/// transparent-spinner.gif: 33×21 (odd sides: MP4 pads them), a dot circling over a transparent
/// canvas with restore-to-background disposal, 3 cs per frame (tick 3 cs = 100/3 fps), sub-rect frames.
func transparentSpinner() -> FixtureGIF {
    let w = 33, h = 21, size = 7, steps = 10
    let transparent: UInt8 = 255, dot = cubeIndex(0, 153, 51)
    let frames = (0..<steps).map { i -> FixtureFrame in
        let angle = Double(i) / Double(steps) * 2 * .pi
        let left = Int((Double(w - size) / 2 + cos(angle) * 10).rounded())
        let top = Int((Double(h - size) / 2 + sin(angle) * 6).rounded())
        let pixels = disc(width: size, height: size, cx: 3, cy: 3, radius: 3.2, color: dot, background: transparent)
        return FixtureFrame(
            left: left, top: top, width: size, height: size, indices: pixels, delay: 3, disposal: 2,
            transparentIndex: Int(transparent))
    }
    return FixtureGIF(width: w, height: h, globalPalette: cube, backgroundIndex: Int(transparent), loopCounts: [0], frames: frames)
}

let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Examples"
for (name, gif) in [("bouncing-ball", bouncingBall()), ("missing-delays", missingDelays()), ("transparent-spinner", transparentSpinner())] {
    let path = "\(folder)/\(name).gif"
    try gif.encode().write(to: URL(fileURLWithPath: path))
    print("wrote \(path)")
}
