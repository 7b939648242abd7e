import Foundation
import ZIPFoundation

extension Data {
    /// The CRC-32 of the bytes (the checksum ZIP archives carry per entry).
    var crc32Checksum: UInt32 { crc32(checksum: 0) }
}
