import Foundation

/// Reads and checks the certificates and keys `TLSSettings` are made of, once, turning every
/// failure into a `TLSSettingsError` that names its source. It links no TLS library: it reads
/// PEM blocks and, of each certificate, the validity dates in its DER (RFC 5280); an engine
/// builds its TLS library's configuration of the same bytes (and checks the key against the
/// chain) when it first uses them.
enum TLSMaterial {
    /// The most bytes of a PEM file of certificates read (a bundle of a system's roots is a few
    /// hundred KiB).
    static let maximumCertificateFileBytes = 8 << 20

    /// The PEM bytes of `source`. A private key's file (`isPrivate`) is read as `SecretFile`
    /// reads a secret (others may not read it, at most 1 MiB); a certificate's file is only
    /// bounded in size. Neither may be a FIFO or a device.
    static func pem(of source: TLSSettings.PEMSource, isPrivate: Bool = false) throws -> [UInt8] {
        let bytes: [UInt8]
        switch source {
        case let .bytes(data, _):
            bytes = Array(data)
        case let .file(path):
            do {
                bytes = Array(
                    try SecretFile.read(
                        path, checksAccess: isPrivate, limit: isPrivate ? SecretFile.maximumBytes : maximumCertificateFileBytes))
            } catch {
                throw TLSSettingsError(source: path, reason: error.isMissing ? .missingFile : .unreadable(error.description))
            }
        }
        // A PEM block starts a line: `-----BEGIN CERTIFICATE-----`.
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.starts(with: marker) || bytes.firstRange(of: [UInt8(ascii: "\n")] + marker) != nil else {
            throw TLSSettingsError(source: source.name, reason: .notPEM)
        }
        return bytes
    }

    /// The PEM of `source`, checked to hold at least one certificate, each readable and valid
    /// now.
    static func certificates(from source: TLSSettings.PEMSource, now: Date = Date()) throws -> [UInt8] {
        let bytes = try pem(of: source)
        let certificates = PEMBlocks.decoded(bytes, label: { $0 == "CERTIFICATE" })
        guard !certificates.isEmpty else { throw TLSSettingsError(source: source.name, reason: .noCertificate) }
        for der in certificates {
            guard let validity = CertificateValidity(der: der) else { throw TLSSettingsError(source: source.name, reason: .noCertificate) }
            if validity.notAfter < now { throw TLSSettingsError(source: source.name, reason: .expired(validity.notAfter)) }
            if validity.notBefore > now { throw TLSSettingsError(source: source.name, reason: .notYetValid(validity.notBefore)) }
        }
        return bytes
    }

    /// The PEM of `source`, checked to hold an unencrypted private key (PKCS#8 or the
    /// algorithm's own block).
    static func privateKey(from source: TLSSettings.PEMSource) throws -> [UInt8] {
        let bytes = try pem(of: source, isPrivate: true)
        let keys = PEMBlocks.decoded(bytes, label: { $0.hasSuffix("PRIVATE KEY") && !$0.hasPrefix("ENCRYPTED") })
        guard !keys.isEmpty else { throw TLSSettingsError(source: source.name, reason: .unusableKey) }
        return bytes
    }
}

/// The blocks of PEM text (RFC 7468): `-----BEGIN label-----`, Base64, `-----END label-----`.
enum PEMBlocks {
    /// The decoded bytes of every well-formed block whose label `label` accepts.
    static func decoded(_ bytes: [UInt8], label accepts: (String) -> Bool) -> [Data] {
        let text = String(decoding: bytes, as: UTF8.self)
        var blocks: [Data] = []
        var label: String?
        var body = ""
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let open = Self.label(of: line, marker: "-----BEGIN ") {
                label = open
                body = ""
            } else if let close = Self.label(of: line, marker: "-----END "), let open = label {
                if close == open, accepts(open), let data = Data(base64Encoded: body), !data.isEmpty { blocks.append(data) }
                label = nil
            } else if label != nil {
                body += line
            }
        }
        return blocks
    }

    private static func label(of line: String, marker: String) -> String? {
        guard line.hasPrefix(marker), line.hasSuffix("-----"), line.count >= marker.count + 5 else { return nil }
        return String(line.dropFirst(marker.count).dropLast(5))
    }
}

/// The validity dates of an X.509 certificate, read from its DER (RFC 5280 §4.1): the
/// certificate's SEQUENCE, its TBSCertificate's, an optional version, the serial number, the
/// signature algorithm, the issuer, then the validity's two times.
struct CertificateValidity {
    let notBefore: Date
    let notAfter: Date

    /// Nil when `der` is not a certificate this reader can follow.
    init?(der: Data) {
        var reader = DERReader(bytes: [UInt8](der))
        guard var certificate = reader.enter(tag: 0x30), var tbs = certificate.enter(tag: 0x30) else { return nil }
        if tbs.peekTag == 0xA0 { guard tbs.skip() else { return nil } }
        guard tbs.skip(), tbs.skip(), tbs.skip(), var validity = tbs.enter(tag: 0x30) else { return nil }
        guard let notBefore = validity.time(), let notAfter = validity.time() else { return nil }
        self.notBefore = notBefore
        self.notAfter = notAfter
    }
}

/// Walks DER's tag-length-value elements.
private struct DERReader {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var peekTag: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The next element's tag and the range of its content; the reader moves past it.
    private mutating func next() -> (tag: UInt8, content: Range<Int>)? {
        guard index + 2 <= bytes.count else { return nil }
        let tag = bytes[index]
        var length = Int(bytes[index + 1])
        var start = index + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), start + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[start..<start + count] { length = length << 8 | Int(byte) }
            start += count
        }
        guard length >= 0, start + length <= bytes.count else { return nil }
        index = start + length
        return (tag, start..<start + length)
    }

    /// A reader over the content of the next element, which must have `tag`.
    mutating func enter(tag: UInt8) -> DERReader? {
        guard let element = next(), element.tag == tag else { return nil }
        return DERReader(bytes: Array(bytes[element.content]))
    }

    /// Moves past the next element.
    mutating func skip() -> Bool { next() != nil }

    /// The next element as a UTCTime (`YYMMDDHHMMSSZ`, years 1950-2049) or GeneralizedTime
    /// (`YYYYMMDDHHMMSSZ`).
    mutating func time() -> Date? {
        guard let element = next(), element.tag == 0x17 || element.tag == 0x18 else { return nil }
        let text = String(decoding: bytes[element.content], as: UTF8.self)
        let digits = text.hasSuffix("Z") ? String(text.dropLast()) : text
        let yearDigits = element.tag == 0x17 ? 2 : 4
        guard digits.count == yearDigits + 10, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        let numbers = Array(digits)
        func number(_ from: Int, _ count: Int) -> Int { Int(String(numbers[from..<from + count])) ?? 0 }
        var year = number(0, yearDigits)
        if yearDigits == 2 { year += year < 50 ? 2000 : 1900 }
        var components = DateComponents()
        components.year = year
        components.month = number(yearDigits, 2)
        components.day = number(yearDigits + 2, 2)
        components.hour = number(yearDigits + 4, 2)
        components.minute = number(yearDigits + 6, 2)
        components.second = number(yearDigits + 8, 2)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: components)
    }
}
