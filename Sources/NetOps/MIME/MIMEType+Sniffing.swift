import Foundation

extension MIMEType {
    /// The type of `data` judged by its first bytes (at most `sniffLength` are read): the
    /// signatures of JPEG, PNG, GIF, WebP, HEIC/HEIF, PDF, ZIP, GZIP, MP4/M4A, MP3 and WAV, then
    /// JSON, XML and plain UTF-8 text by how they begin; nil for anything else, and for no bytes.
    ///
    /// A prefix of a file is enough: text cut in the middle of a character still counts as text.
    public init?(sniffing data: some DataProtocol) {
        let head = Array(data.prefix(Self.sniffLength))
        guard let type = Self.signature(of: head) ?? Self.textType(of: head, complete: head.count == data.count) else { return nil }
        self = type
    }

    /// A binary format recognised by its magic bytes.
    private static func signature(of bytes: [UInt8]) -> MIMEType? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a") || ascii("GIF89a") { return .gif }
        if ascii("RIFF"), ascii("WEBP", at: 8) { return .webp }
        if ascii("RIFF"), ascii("WAVE", at: 8) { return .wav }
        if ascii("%PDF-") { return .pdf }
        // A local file header, the end record of an empty archive, or a spanned archive's marker.
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) || starts([0x50, 0x4B, 0x07, 0x08]) { return .zip }
        if starts([0x1F, 0x8B, 0x08]) { return .gzip }
        if ascii("ftyp", at: 4) { return isoMediaType(of: bytes) }
        if ascii("ID3") || isMPEGAudioLayer3Frame(bytes) { return .mp3 }
        return nil
    }

    /// An ISO base media file (`ftyp` box): its major brand, then its compatible brands, say
    /// whether it is a HEIF image, MP4 audio or MP4 video.
    private static func isoMediaType(of bytes: [UInt8]) -> MIMEType? {
        let boxSize = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let end = min(bytes.count, max(boxSize, 12))
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 { brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self)) }
            offset += 4
        }
        for brand in brands {
            switch brand {
            case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
            case "avif", "avis": return nil  // AVIF is HEIF-based but not a type sniffed here
            case "mif1", "msf1": return .heif
            case "M4A ", "M4B ": return .m4a
            case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "dash", "M4V ", "mmp4": return .mp4
            default: continue
            }
        }
        return nil
    }

    /// An MPEG-1/2/2.5 Layer III frame header (an MP3 without an ID3 tag): 11 sync bits, a
    /// valid version, layer III, a bitrate index that is not "bad" and a real sample rate.
    private static func isMPEGAudioLayer3Frame(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
        let version = (bytes[1] >> 3) & 0x03
        let layer = (bytes[1] >> 1) & 0x03
        let bitrate = bytes[2] >> 4
        let sampleRate = (bytes[2] >> 2) & 0x03
        return version != 0b01 && layer == 0b01 && bitrate != 0b1111 && sampleRate != 0b11
    }

    /// JSON, XML or plain text, when the bytes are UTF-8 text.
    private static func textType(of bytes: [UInt8], complete: Bool) -> MIMEType? {
        guard !bytes.isEmpty, let text = utf8Text(bytes, complete: complete) else { return nil }
        let scalars = Array(text.unicodeScalars.drop { $0 == "\u{FEFF}" || isJSONWhitespace($0) }.prefix(64))
        guard let first = scalars.first else { return .plainText }
        let afterFirst = scalars.dropFirst().drop(while: isJSONWhitespace)
        switch first {
        case "{":
            // An object opens with a key or closes at once.
            if let next = afterFirst.first, next == "\"" || next == "}" { return .json }
            if afterFirst.isEmpty, !complete { return .json }
        case "[":
            // An array opens with a value or closes at once.
            if let next = afterFirst.first, "{[\"-0123456789tfn]".unicodeScalars.contains(next) { return .json }
        case "<":
            if String(String.UnicodeScalarView(scalars)).hasPrefix("<?xml") { return .xml }
        default:
            break
        }
        return .plainText
    }

    /// `bytes` as text when they are UTF-8 without control characters other than tab, line
    /// breaks and form feed. Of an incomplete prefix, up to three trailing bytes may be dropped:
    /// a character cut off at the end is no reason to call the rest binary.
    private static func utf8Text(_ bytes: [UInt8], complete: Bool) -> String? {
        let allowedControls: Set<Unicode.Scalar> = ["\t", "\n", "\r", "\u{0C}"]
        for cut in 0...(complete ? 0 : 3) where cut < bytes.count {
            guard let text = String(validating: bytes.dropLast(cut), as: UTF8.self) else { continue }
            let isText = text.unicodeScalars.allSatisfy { scalar in
                !(scalar.value < 0x20 || scalar.value == 0x7F) || allowedControls.contains(scalar)
            }
            return isText ? text : nil
        }
        return nil
    }

    private static func isJSONWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }
}
