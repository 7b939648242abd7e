import Foundation
import NetOps
import TestSupport
import Testing

/// MIME types from first bytes and from file names.
@Suite struct MIMETypeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let expected: MIMEType?
        var testDescription: String { name }
    }

    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// An ISO media `ftyp` box: size, `ftyp`, major brand, minor version, compatible brands.
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = UInt32(16 + 4 * compatible.count)
        let sizeBytes = withUnsafeBytes(of: size.bigEndian, Array.init)
        return sizeBytes + ascii("ftyp") + ascii(major) + [0, 0, 0, 0] + compatible.flatMap(ascii) + [0, 0, 0, 8] + ascii("free")
    }

    /// A RIFF container header: `RIFF`, little-endian size, form type.
    static func riff(_ form: String, _ chunk: String) -> [UInt8] {
        ascii("RIFF") + [0x24, 0x08, 0x00, 0x00] + ascii(form) + ascii(chunk) + [0x10, 0, 0, 0]
    }

    static let cases: [Case] = [
        Case(name: "JPEG (JFIF)", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + ascii("JFIF") + [0x00, 0x01, 0x01], expected: .jpeg),
        Case(name: "JPEG (Exif)", bytes: [0xFF, 0xD8, 0xFF, 0xE1, 0x1C, 0x45] + ascii("Exif") + [0, 0], expected: .jpeg),
        Case(name: "PNG", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D] + ascii("IHDR"), expected: .png),
        Case(name: "GIF87a", bytes: ascii("GIF87a") + [0x01, 0x00, 0x01, 0x00, 0x80], expected: .gif),
        Case(name: "GIF89a", bytes: ascii("GIF89a") + [0x01, 0x00, 0x01, 0x00, 0x80], expected: .gif),
        Case(name: "WebP", bytes: riff("WEBP", "VP8 "), expected: .webp),
        Case(name: "WAV", bytes: riff("WAVE", "fmt "), expected: .wav),
        Case(name: "RIFF of another form (AVI)", bytes: riff("AVI ", "LIST"), expected: nil),
        Case(name: "HEIC", bytes: ftyp("heic", ["mif1", "heic"]), expected: .heic),
        Case(name: "HEIF (mif1, HEVC among the compatible brands)", bytes: ftyp("mif1", ["mif1", "heic"]), expected: .heif),
        Case(name: "MP4 (isom)", bytes: ftyp("isom", ["isom", "iso2", "avc1", "mp41"]), expected: .mp4),
        Case(name: "MP4 (mp42)", bytes: ftyp("mp42", ["mp42", "isom"]), expected: .mp4),
        Case(name: "M4A", bytes: ftyp("M4A ", ["M4A ", "mp42", "isom"]), expected: .m4a),
        Case(name: "QuickTime is not MP4", bytes: ftyp("qt  ", ["qt  "]), expected: nil),
        Case(name: "PDF", bytes: ascii("%PDF-1.7\n%") + [0xE2, 0xE3, 0xCF, 0xD3], expected: .pdf),
        Case(name: "ZIP", bytes: [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00], expected: .zip),
        Case(name: "empty ZIP", bytes: [0x50, 0x4B, 0x05, 0x06] + Array(repeating: 0, count: 18), expected: .zip),
        Case(name: "GZIP", bytes: [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03], expected: .gzip),
        Case(name: "MP3 with an ID3 tag", bytes: ascii("ID3") + [0x04, 0x00, 0x00, 0, 0, 0, 0x0A], expected: .mp3),
        Case(name: "MP3 frame (MPEG-1 Layer III, 128 kbit/s, 44.1 kHz)", bytes: [0xFF, 0xFB, 0x90, 0x64, 0x00], expected: .mp3),
        Case(name: "MPEG Layer II frame is not MP3", bytes: [0xFF, 0xFD, 0x90, 0x64, 0x00], expected: nil),
        Case(name: "JSON object", bytes: ascii("  {\n  \"id\": 1}"), expected: .json),
        Case(name: "JSON array", bytes: ascii("[1, 2, 3]"), expected: .json),
        Case(name: "JSON with a byte-order mark", bytes: [0xEF, 0xBB, 0xBF] + ascii("{\"a\":true}"), expected: .json),
        Case(name: "text in brackets is not JSON", bytes: ascii("[citation needed]"), expected: .plainText),
        Case(name: "XML", bytes: ascii("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>"), expected: .xml),
        Case(name: "plain text", bytes: ascii("Hello, world.\r\nSecond line\tend\n"), expected: .plainText),
        Case(name: "UTF-8 text", bytes: Array("Grüße, 世界 👋".utf8), expected: .plainText),
        Case(name: "control bytes are binary", bytes: [0x00, 0x01, 0x02, 0x03, 0x41], expected: nil),
        Case(name: "invalid UTF-8 is binary", bytes: [0x41, 0xC3, 0x28, 0x41], expected: nil),
        Case(name: "no bytes", bytes: [], expected: nil),
    ]

    @Test(arguments: cases) func sniffsFirstBytes(_ testCase: Case) {
        #expect(MIMEType(sniffing: testCase.bytes) == testCase.expected)
        #expect(MIMEType(sniffing: Data(testCase.bytes)) == testCase.expected)
    }

    /// Only the first `sniffLength` bytes are read: long text cut in the middle of a character
    /// is still text, and what follows a signature does not matter.
    @Test func readsOnlyAPrefix() {
        let text = Data(String(repeating: "é", count: MIMEType.sniffLength).utf8)
        #expect(MIMEType(sniffing: text) == .plainText)
        var jpeg = Data([0xFF, 0xD8, 0xFF, 0xDB])
        jpeg.append(Data(repeating: 0x00, count: 5_000))
        #expect(MIMEType(sniffing: jpeg) == .jpeg)
        #expect(MIMEType(sniffing: Data(repeating: 0x41, count: 3)) == .plainText)
    }

    struct NameCase: Sendable, CustomTestStringConvertible {
        let filename: String
        let expected: MIMEType?
        var testDescription: String { filename }
    }

    @Test(arguments: [
        NameCase(filename: "photo.jpg", expected: .jpeg),
        NameCase(filename: "PHOTO.JPEG", expected: .jpeg),
        NameCase(filename: "dir.v2/scan.pdf", expected: .pdf),
        NameCase(filename: "backup.tar.gz", expected: .gzip),
        NameCase(filename: "clip.mp4", expected: .mp4),
        NameCase(filename: "song.mp3", expected: .mp3),
        NameCase(filename: "data.json", expected: .json),
        NameCase(filename: "table.csv", expected: MIMEType(name: "text/csv", fileExtension: "csv")),
        NameCase(filename: ".profile", expected: nil),
        NameCase(filename: "README", expected: nil),
        NameCase(filename: "trailing.", expected: nil),
        NameCase(filename: "unknown.xyz", expected: nil),
    ])
    func typeOfAFileName(_ testCase: NameCase) {
        #expect(MIMEType(filename: testCase.filename) == testCase.expected)
    }

    @Test func fileExtensionLookup() {
        #expect(MIMEType(fileExtension: ".PNG") == .png)
        #expect(MIMEType(fileExtension: "heic") == .heic)
        #expect(MIMEType(fileExtension: "") == nil)
        #expect(MIMEType.webp.fileExtension == "webp")
        #expect(MIMEType.gzip.description == "application/gzip")
    }

    /// A binary signature beats the name; the name refines text; nothing known is octet-stream.
    @Test func detectWeighsBytesAndName() {
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0])
        #expect(MIMEType.detect(jpeg, filename: "notes.txt") == .jpeg)
        #expect(MIMEType.detect(Data("a,b\n1,2\n".utf8), filename: "table.csv").name == "text/csv")
        #expect(MIMEType.detect(Data("{\"a\":1}".utf8), filename: "export") == .json)
        #expect(MIMEType.detect(Data([0x00, 0x01]), filename: "blob") == .octetStream)
        #expect(MIMEType.detect(Data([0x00, 0x01]), filename: "movie.mp4") == .mp4)
        #expect(MIMEType.detect(Data()) == .octetStream)
    }

    /// Files made by the real tools (`gzip`, `zip`, Python's `wave` and `zlib`) are recognised
    /// from their first bytes, whatever their names say.
    @Test(.requires(.zip, .python3)) func filesMadeByRealTools() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("some text, compressed and archived\n".utf8).write(to: folder.appendingPathComponent("note.txt"))
        try await offCooperativePool {
            try Self.run("gzip", ["-k", "note.txt"], in: folder)
            try Self.run("zip", ["-q", "note.zip", "note.txt"], in: folder)
            try Self.run("python3", ["-c", Self.fixtures], in: folder)
        }
        let expected: [(String, MIMEType)] = [
            ("note.txt.gz", .gzip), ("note.zip", .zip), ("tone.wav", .wav), ("dot.png", .png), ("note.txt", .plainText),
        ]
        for (file, type) in expected {
            let url = folder.appendingPathComponent(file)
            #expect(MIMEType(sniffing: try Data(contentsOf: url)) == type, "\(file)")
            // Renamed to something misleading, the bytes still decide.
            let renamed = folder.appendingPathComponent("\(file).bin.mp3")
            try FileManager.default.copyItem(at: url, to: renamed)
            if type != .plainText { #expect(MIMEType.detect(fileAt: renamed) == type, "\(file)") }
        }
        #expect(MIMEType.detect(fileAt: folder.appendingPathComponent("missing.pdf")) == .pdf)
    }

    /// Writes `tone.wav` (a real PCM WAV) and `dot.png` (a real 1×1 PNG).
    static let fixtures = #"""
        import struct, wave, zlib
        with wave.open("tone.wav", "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
            w.writeframes(b"\x00\x10" * 800)
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xffffffff)
        png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
        png += chunk(b"IDAT", zlib.compress(b"\x00\xff")) + chunk(b"IEND", b"")
        open("dot.png", "wb").write(png)
        """#

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ tool: String, _ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.currentDirectoryURL = folder
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(tool) exited with \(process.terminationStatus)")
        }
    }
}
