import Foundation

/// What an archive's central directory declares, read independently of ZIPFoundation.
///
/// ZIPFoundation's entry iterator silently stops at the first entry it does not support (an
/// encrypted one, or a malformed record), which would let an archive hide entries. This reads
/// only the fixed-size fields a safety check needs (the entry count and each record's flags and
/// name), so the unarchiver can compare and name the entry that was hidden. It is not a ZIP
/// reader: nothing is inflated or extracted here.
struct CentralDirectoryScan {
    /// One central directory record's flags and raw name.
    struct Record {
        var flags: UInt16
        var name: String
        var isEncrypted: Bool { flags & 0x1 != 0 || flags & 0x40 != 0 }
    }

    /// The records, in directory order.
    var records: [Record]

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads the end-of-central-directory record (ZIP64 when present) and the records it points to.
    init(archive url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let tailLength = min(size, 65_535 + 22)
        try handle.seek(toOffset: size - tailLength)
        let tail = [UInt8](try handle.read(upToCount: Int(tailLength)) ?? Data())
        guard let eocd = Self.lastIndex(of: [0x50, 0x4B, 0x05, 0x06], in: tail), eocd + 22 <= tail.count else {
            throw Malformed(description: "no end of central directory record")
        }
        var count = UInt64(Self.uint16(tail, eocd + 10))
        var directorySize = UInt64(Self.uint32(tail, eocd + 12))
        var directoryOffset = UInt64(Self.uint32(tail, eocd + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: the locator just before the record gives the ZIP64 end record's offset.
            guard eocd >= 20, Array(tail[eocd - 20..<eocd - 16]) == [0x50, 0x4B, 0x06, 0x07] else {
                throw Malformed(description: "ZIP64 locator missing")
            }
            let zip64Offset = Self.uint64(tail, eocd - 20 + 8)
            // FileHandle traps on an offset beyond Int64 (found by the archive fuzzer).
            guard zip64Offset <= size else { throw Malformed(description: "ZIP64 end record outside the file") }
            try handle.seek(toOffset: zip64Offset)
            let record = [UInt8](try handle.read(upToCount: 56) ?? Data())
            guard record.count == 56, Array(record[0..<4]) == [0x50, 0x4B, 0x06, 0x06] else {
                throw Malformed(description: "ZIP64 end of central directory record missing")
            }
            count = Self.uint64(record, 32)
            directorySize = Self.uint64(record, 40)
            directoryOffset = Self.uint64(record, 48)
        }
        guard directoryOffset <= size, directorySize <= size - directoryOffset else {
            throw Malformed(description: "central directory outside the file")
        }
        try handle.seek(toOffset: directoryOffset)
        let directory = [UInt8](try handle.read(upToCount: Int(directorySize)) ?? Data())
        var records: [Record] = []
        var position = 0
        while records.count < count {
            guard position + 46 <= directory.count,
                Array(directory[position..<position + 4]) == [0x50, 0x4B, 0x01, 0x02]
            else {
                throw Malformed(description: "central directory record \(records.count + 1) of \(count) is malformed")
            }
            let nameLength = Int(Self.uint16(directory, position + 28))
            let extraLength = Int(Self.uint16(directory, position + 30))
            let commentLength = Int(Self.uint16(directory, position + 32))
            let nameEnd = position + 46 + nameLength
            guard nameEnd <= directory.count else { throw Malformed(description: "central directory truncated") }
            let nameBytes = Array(directory[position + 46..<nameEnd])
            records.append(
                Record(
                    flags: Self.uint16(directory, position + 8),
                    name: String(decoding: nameBytes, as: UTF8.self)))
            position = nameEnd + extraLength + commentLength
        }
        self.records = records
    }

    private static func lastIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = bytes.count - pattern.count
        while index >= 0 {
            if bytes[index] == pattern[0], Array(bytes[index..<index + pattern.count]) == pattern { return index }
            index -= 1
        }
        return nil
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(uint16(bytes, at)) | UInt32(uint16(bytes, at + 2)) << 16
    }

    private static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        UInt64(uint32(bytes, at)) | UInt64(uint32(bytes, at + 4)) << 32
    }
}
