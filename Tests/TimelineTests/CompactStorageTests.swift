import Foundation
import Testing
import GifxTimeline

/// The compact per-frame storage behind `Timeline.frames` and `TimelineInput.frames`: every value given is
/// the value read back, across chunk and block boundaries and for values no GIF could hold.
@Suite struct CompactStorageTests {
    /// Descriptors a GIF can hold, varied field by field, 40 000 of them (three storage chunks).
    static func gifLikeDescriptors(_ count: Int) -> [FrameDescriptor] {
        (0..<count).map { i in
            FrameDescriptor(
                rawDelay: i % 7 == 0 ? nil : (i * 37) % 65536,
                rect: PixelRect(x: i % 65536, y: (i * 3) % 65536, width: 65535 - i % 1000, height: 1 + i % 9),
                disposal: Disposal(rawField: i % 8), transparentIndex: i % 5 == 0 ? nil : i % 256,
                interlaced: i % 3 == 0)
        }
    }

    @Test func descriptorsRoundTripAcrossChunks() {
        let descriptors = Self.gifLikeDescriptors(40_000)
        let list = FrameDescriptorList(descriptors)
        #expect(list.count == descriptors.count)
        #expect(Array(list) == descriptors)
        #expect(list == FrameDescriptorList(descriptors))
        var changed = descriptors
        changed[39_999].interlaced.toggle()
        #expect(list != FrameDescriptorList(changed))
    }

    @Test func descriptorsNoGIFCouldHoldAreKeptExactly() {
        let odd = [
            FrameDescriptor(rawDelay: 65536, rect: PixelRect(x: 0, y: 0, width: 1, height: 1)),
            FrameDescriptor(rawDelay: -1, rect: PixelRect(x: 0, y: 0, width: 1, height: 1)),
            FrameDescriptor(rawDelay: 3, rect: PixelRect(x: -5, y: 70_000, width: 1 << 40, height: 0)),
            FrameDescriptor(rawDelay: nil, rect: PixelRect(x: 1, y: 2, width: 3, height: 4), transparentIndex: 256),
            FrameDescriptor(rawDelay: nil, rect: PixelRect(x: 1, y: 2, width: 3, height: 4), transparentIndex: -1),
            FrameDescriptor(rawDelay: 0, rect: PixelRect(x: 65535, y: 65535, width: 65535, height: 65535), transparentIndex: 255),
        ]
        #expect(Array(FrameDescriptorList(odd)) == odd)
    }

    /// 40 000 frames: each frame's schedule equals what docs/timeline.md gives, computed here.
    @Test func scheduleOfManyFramesReadsBack() {
        let raw: [Int?] = (0..<40_000).map { $0 % 11 == 0 ? nil : [0, 1, 2, 7, 65535][$0 % 5] }
        let timeline = Timeline(input(raw))
        var delays: [Int] = []
        for r in raw {
            if let r { delays.append(r < 2 ? 10 : r) } else { delays.append(delays.last ?? 10) }
        }
        #expect(timeline.frames.count == raw.count)
        #expect(timeline.frames.map(\.delay) == delays)
        #expect(timeline.frames.map(\.start) == prefixStarts(delays))
        #expect(timeline.frames.map(\.index) == Array(0..<raw.count))
        #expect(timeline.frames.map(\.rawDelay) == raw)
        #expect(timeline.duration.units == delays.reduce(0, +))
    }

    @Test func framesNoGIFCouldProduceAreKeptExactly() throws {
        let rect = PixelRect(x: 0, y: 0, width: 2, height: 2)
        let frames: [Timeline.Frame] = [
            .init(index: 0, rawDelay: 5, delay: 5, rule: .raw, start: 0, rect: rect, disposal: .none, transparentIndex: nil, interlaced: false),
            .init(index: 7, rawDelay: nil, delay: 10, rule: .default, start: 5, rect: rect, disposal: .keep, transparentIndex: 3, interlaced: true),
            .init(index: 2, rawDelay: 70_000, delay: 70_000, rule: .raw, start: -4, rect: rect, disposal: .previous, transparentIndex: nil, interlaced: false),
            .init(index: 3, rawDelay: 2, delay: 2, rule: .raw, start: 1 << 40, rect: rect, disposal: .background, transparentIndex: 0, interlaced: false),
            .init(index: 4, rawDelay: 2, delay: 2, rule: .carried, start: 3, rect: rect, disposal: .none, transparentIndex: nil, interlaced: false),
        ]
        let stored = Timeline.Frames(frames)
        #expect(Array(stored) == frames)
        // Decoding edited JSON keeps such values too.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(frames)
        #expect(Array(try JSONDecoder().decode(Timeline.Frames.self, from: data)) == frames)
        let reencoded = try encoder.encode(stored)
        #expect(reencoded == data, "\(String(decoding: reencoded, as: UTF8.self)) vs \(String(decoding: data, as: UTF8.self))")
    }

    @Test func offsetsRoundTripWhateverTheirOrder() {
        var values: [Int] = []
        var value = 0
        for i in 0..<70_000 {  // three blocks of 32768
            value += [1, 23, 1 << 20, 0][i % 4]
            values.append(value)
        }
        values += [5_000_000_000, 5_000_000_001, 3, -7, Int.max, Int.min, 0, 1 << 33]
        var column = OffsetColumn()
        for v in values { column.append(v) }
        #expect(Array(column) == values)
    }
}
