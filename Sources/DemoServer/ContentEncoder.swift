import Foundation

/// The content codings DemoServer can put a body in, written here without a compression library
/// so the server needs none.
///
/// The encoders are deliberately simple: gzip and deflate use one fixed-Huffman block whose only
/// matches are runs of one repeated byte (258 bytes at a time, about 160:1 for a run of zeros: a
/// small decompression bomb); brotli uses uncompressed meta-blocks and zstd raw blocks. Every
/// output is a valid stream that any decoder reads back to the input.
public enum ContentEncoder {
    /// The codings `encode(_:as:)` knows.
    public enum Coding: String, Sendable, CaseIterable {
        /// RFC 1952 gzip.
        case gzip
        /// RFC 1950 zlib, which HTTP calls `deflate`.
        case deflate
        /// RFC 7932 brotli.
        case br
        /// RFC 8878 Zstandard.
        case zstd
    }

    /// `bytes` encoded as `coding`.
    public static func encode(_ bytes: [UInt8], as coding: Coding) -> [UInt8] {
        switch coding {
        case .gzip:
            var output: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]
            output += deflate(bytes)
            output += littleEndian(crc32(bytes))
            output += littleEndian(UInt32(truncatingIfNeeded: bytes.count))
            return output
        case .deflate:
            // CMF 0x78 (deflate, 32 KiB window), FLG 0x01: 0x7801 is a multiple of 31.
            var output: [UInt8] = [0x78, 0x01]
            output += deflate(bytes)
            let adler = adler32(bytes)
            output += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)]
            return output
        case .br:
            return brotliStored(bytes)
        case .zstd:
            return zstdRaw(bytes)
        }
    }

    /// `count` zero bytes encoded as gzip or deflate (about 160:1), made without holding them.
    public static func zeros(_ count: Int, as coding: Coding) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        var remaining = count
        if remaining > 0 {
            writer.writeCode(0x30, bits: 8)  // literal 0
            remaining -= 1
        }
        while remaining >= 258 {
            writer.writeCode(0xc5, bits: 8)
            writer.writeCode(0, bits: 5)
            remaining -= 258
        }
        for _ in 0..<remaining { writer.writeCode(0x30, bits: 8) }
        writer.writeCode(0, bits: 7)
        writer.alignToByte()
        switch coding {
        case .gzip:
            let crc = crcTable.withUnsafeBufferPointer { table in
                var crc: UInt32 = 0xffff_ffff
                for _ in 0..<count { crc = table[Int(crc & 0xff)] ^ (crc >> 8) }
                return crc
            }
            return [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff] + writer.bytes + littleEndian(crc ^ 0xffff_ffff)
                + littleEndian(UInt32(truncatingIfNeeded: count))
        default:
            // Adler-32 of zeros: the first sum stays 1, the second adds 1 per byte.
            let adler = UInt32(count % 65_521) << 16 | 1
            return [0x78, 0x01] + writer.bytes + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)]
        }
    }

    // MARK: Deflate (one fixed-Huffman block)

    /// Writes bits least significant first, as deflate and brotli pack them.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var count = 0

        mutating func write(_ value: UInt32, bits: Int) {
            for index in 0..<bits {
                current |= ((value >> UInt32(index)) & 1) << UInt32(count)
                count += 1
                if count == 8 { flush() }
            }
        }

        /// A Huffman code: its bits go most significant first.
        mutating func writeCode(_ code: UInt32, bits: Int) {
            for index in stride(from: bits - 1, through: 0, by: -1) {
                write((code >> UInt32(index)) & 1, bits: 1)
            }
        }

        mutating func alignToByte() {
            if count > 0 { flush() }
        }

        private mutating func flush() {
            bytes.append(UInt8(current))
            current = 0
            count = 0
        }
    }

    private static func deflate(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        var index = 0
        while index < input.count {
            if index > 0, index + 258 <= input.count, isRun(input, from: index, length: 258, of: input[index - 1]) {
                writer.writeCode(0xc5, bits: 8)  // length code 285: 258 bytes
                writer.writeCode(0, bits: 5)  // distance code 0: 1 byte back
                index += 258
                continue
            }
            let literal = UInt32(input[index])
            if literal < 144 {
                writer.writeCode(0x30 + literal, bits: 8)
            } else {
                writer.writeCode(0x190 + literal - 144, bits: 9)
            }
            index += 1
        }
        writer.writeCode(0, bits: 7)  // end of block (256)
        writer.alignToByte()
        return writer.bytes
    }

    private static func isRun(_ input: [UInt8], from start: Int, length: Int, of byte: UInt8) -> Bool {
        for index in start..<(start + length) where input[index] != byte {
            return false
        }
        return true
    }

    private static let crcTable: [UInt32] = (0..<256).map { value in
        var crc = UInt32(value)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? 0xedb8_8320 ^ (crc >> 1) : crc >> 1
        }
        return crc
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        crcTable.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                var crc: UInt32 = 0xffff_ffff
                for byte in input {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8)
                }
                return crc ^ 0xffff_ffff
            }
        }
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var first: UInt32 = 1
        var second: UInt32 = 0
        for byte in bytes {
            first = (first + UInt32(byte)) % 65_521
            second = (second + first) % 65_521
        }
        return second << 16 | first
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff), UInt8(value >> 24)]
    }

    // MARK: Brotli and Zstandard, stored

    /// Brotli with every byte in uncompressed meta-blocks of up to 32 KiB.
    private static func brotliStored(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.write(0, bits: 1)  // WBITS: 16
        var offset = 0
        while offset < input.count {
            let length = min(32_768, input.count - offset)
            writer.write(0, bits: 1)  // ISLAST: no
            writer.write(0, bits: 2)  // MNIBBLES: 4
            writer.write(UInt32(length - 1), bits: 16)  // MLEN - 1
            writer.write(1, bits: 1)  // ISUNCOMPRESSED
            writer.alignToByte()
            writer.bytes += input[offset..<(offset + length)]
            offset += length
        }
        writer.write(1, bits: 1)  // ISLAST
        writer.write(1, bits: 1)  // ISLASTEMPTY
        writer.alignToByte()
        return writer.bytes
    }

    /// A Zstandard frame of raw blocks of up to 64 KiB, its content size in the header.
    private static func zstdRaw(_ input: [UInt8]) -> [UInt8] {
        // Magic, then the frame header: single segment, a 4-byte content size, no checksum.
        var output: [UInt8] = [0x28, 0xb5, 0x2f, 0xfd, 0xa0]
        output += littleEndian(UInt32(input.count))
        var offset = 0
        repeat {
            let length = min(65_536, input.count - offset)
            let last: UInt32 = offset + length == input.count ? 1 : 0
            let header = last | UInt32(length) << 3  // block type 0: raw
            output += [UInt8(header & 0xff), UInt8((header >> 8) & 0xff), UInt8((header >> 16) & 0xff)]
            output += input[offset..<(offset + length)]
            offset += length
        } while offset < input.count
        return output
    }
}
