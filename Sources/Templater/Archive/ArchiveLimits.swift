/// The limits an archive must stay within to be unpacked.
///
/// Each limit is checked twice: against the sizes the archive's central directory declares,
/// before anything is written, and against the bytes really produced while inflating, so an
/// entry whose header lies is stopped as soon as it passes a limit.
public struct ArchiveLimits: Sendable, Hashable {
    /// The most entries (files and folders) an archive may hold. Default 10 000.
    public var maxEntryCount: Int
    /// The most bytes all entries may inflate to, together. Default 64 MiB.
    public var maxTotalUncompressedSize: UInt64
    /// The largest ratio of uncompressed to compressed size an entry may have. Default 100 (100:1).
    public var maxCompressionRatio: UInt64
    /// Entries smaller than this many uncompressed bytes are exempt from the ratio check (a small
    /// file of repeated characters can compress well without being a bomb). Default 64 KiB.
    public var ratioCheckFloor: UInt64

    /// Makes limits; every argument has the documented default.
    public init(
        maxEntryCount: Int = 10_000,
        maxTotalUncompressedSize: UInt64 = 64 << 20,
        maxCompressionRatio: UInt64 = 100,
        ratioCheckFloor: UInt64 = 64 << 10
    ) {
        self.maxEntryCount = maxEntryCount
        self.maxTotalUncompressedSize = maxTotalUncompressedSize
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioCheckFloor = ratioCheckFloor
    }

    /// The default limits.
    public static let `default` = ArchiveLimits()

    /// Whether `uncompressed` bytes from `compressed` bytes exceed the ratio limit.
    func exceedsRatio(uncompressed: UInt64, compressed: UInt64) -> Bool {
        guard uncompressed > ratioCheckFloor else { return false }
        let (limit, overflow) = max(compressed, 1).multipliedReportingOverflow(by: maxCompressionRatio)
        return !overflow && uncompressed > limit
    }
}
