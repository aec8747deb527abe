import ArgumentParser

@main
struct Gifx: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "GIF to MP4 and sprite sheets, with exact timing.")
}
