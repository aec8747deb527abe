import GifxFrames
import Testing

/// `EnglishList`, which words the lists of names in help texts and messages (`convert --help`, refusals): its
/// loops give the texts written out here by hand, and `joined` the standard library's.
@Suite struct EnglishListTests {
    @Test func phrases() {
        #expect(EnglishList.phrase([]) == "")
        #expect(EnglishList.phrase(["mp4"]) == "mp4")
        #expect(EnglishList.phrase(["mp4", "webm"]) == "mp4 and webm")
        #expect(EnglishList.phrase(["GIF", "WebP", "PNG"], or: true) == "GIF, WebP or PNG")
        #expect(EnglishList.phrase(["a", "b", "c", "d"]) == "a, b, c and d")
    }

    @Test func joinedGivesTheStandardLibrarysText() {
        for items: [String] in [[], ["a"], ["a", "b"], [".mp4", ".webm", "", ".avif"]] {
            #expect(EnglishList.joined(items, separator: ", ") == items.joined(separator: ", "))
            #expect(EnglishList.joined(items, separator: " or ") == items.joined(separator: " or "))
        }
        #expect(EnglishList.joined([".jpg", ".jpeg"], separator: " or ") == ".jpg or .jpeg")
    }
}
