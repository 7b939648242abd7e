import Crypto
import Foundation
import NIOConcurrencyHelpers

/// The state of SampleService in one realm: what was posted and uploaded there, and the
/// service's settings.
///
/// Each realm (`/api/{realm}/…`) starts from the same `SampleDataset` and changes on its own, so
/// tests and demo runs do not see each other's posts and photos. Tokens come from the realm's
/// `TokenAuthority` (`/realm/{realm}/oauth/token`).
public final class SampleService: Sendable {
    /// The album uploaded wall photos go to.
    static let wallAlbumID = -14
    /// The upload server's number, echoed in its receipts.
    static let uploadServerNumber = 7
    /// Bytes one realm may hold in uploaded photos.
    static let uploadLimit = 256 << 20

    private struct Ticket {
        var owner: Int
        var bytes: Data?
    }

    /// A way the service can misbehave, for tests of a client's bad-input handling.
    public enum Fault: String, Sendable, CaseIterable {
        /// Every method answers 200 with an HTML page (a proxy's maintenance page).
        case htmlPage
        /// Every method answers 200 with an empty body.
        case emptyBody
        /// Every method answers well-formed JSON of the wrong shape.
        case wrongShape
    }

    /// Which version of its answers the service gives.
    public enum AnswerVersion: String, Sendable, CaseIterable {
        /// The answers the shipped templates describe (the default).
        case current
        /// A later version of the API: users (`users.get`, `friends.get`) carry `online` as a
        /// boolean instead of 0 or 1. What a client meets when an API changes under it, for
        /// `apilayer templates diff` and report-only validation.
        case next
    }

    private struct State {
        var fault: Fault?
        var answerVersion = AnswerVersion.current
        var latency: Double = 0
        var calls: [String: Int] = [:]
        var addedPosts: [Int: [SampleRecords.Post]] = [:]
        var addedPhotos: [Int: [SampleRecords.Photo]] = [:]
        var photoBytes: [String: Data] = [:]
        var tickets: [String: Ticket] = [:]
        var storedBytes = 0
        var nextID = 1_000
    }

    private let state = NIOLockedValueBox(State())
    /// A secret of this realm that signs upload receipts.
    private let secret = UUID().uuidString

    /// Seconds every API method waits before it answers (0 by default): makes a screen's
    /// requests slow enough to cancel midway.
    public var latency: Double {
        get { state.withLockedValue { $0.latency } }
        set { state.withLockedValue { $0.latency = max(0, newValue) } }
    }

    /// How every method misbehaves, or nil (the default) for correct answers.
    public var fault: Fault? {
        get { state.withLockedValue { $0.fault } }
        set { state.withLockedValue { $0.fault = newValue } }
    }

    /// Which version of its answers the realm gives (`.current` unless set).
    public var answerVersion: AnswerVersion {
        get { state.withLockedValue { $0.answerVersion } }
        set { state.withLockedValue { $0.answerVersion = newValue } }
    }

    /// How many times each API method was called.
    public var callCounts: [String: Int] { state.withLockedValue { $0.calls } }

    /// Counts a call of `method`.
    func count(_ method: String) {
        state.withLockedValue { $0.calls[method, default: 0] += 1 }
    }

    /// `owner`'s posts, newest first: the ones posted here, then the built-in ones.
    func posts(of owner: Int) -> [SampleRecords.Post] {
        state.withLockedValue { $0.addedPosts[owner] ?? [] } + SampleDataset.posts(of: owner)
    }

    /// `owner`'s photos, newest first: the ones uploaded here, then the built-in ones.
    func photos(of owner: Int, photoBase: String) -> [SampleRecords.Photo] {
        state.withLockedValue { $0.addedPhotos[owner] ?? [] } + SampleDataset.photos(of: owner, photoBase: photoBase)
    }

    /// Adds a post to `owner`'s wall and returns its id.
    func addPost(owner: Int, author: Int, text: String, attachments: [SampleRecords.Attachment]?) -> Int {
        state.withLockedValue { state in
            state.nextID += 1
            let post = SampleRecords.Post(
                id: state.nextID, ownerID: owner, fromID: author, date: Int(Date().timeIntervalSince1970),
                text: text, attachments: attachments, likes: .init(count: 0))
            state.addedPosts[owner, default: []].insert(post, at: 0)
            return state.nextID
        }
    }

    /// A new upload ticket for `owner`.
    func openTicket(owner: Int) -> String {
        let ticket = UUID().uuidString.lowercased()
        state.withLockedValue { $0.tickets[ticket] = Ticket(owner: owner) }
        return ticket
    }

    /// Stores an upload for `ticket` and returns the receipt, or nil when the ticket is unknown,
    /// already used, or the realm is full.
    func acceptUpload(_ bytes: Data, ticket: String) -> SampleRecords.UploadReceipt? {
        let accepted = state.withLockedValue { state -> Bool in
            guard var entry = state.tickets[ticket], entry.bytes == nil,
                state.storedBytes + bytes.count <= Self.uploadLimit
            else { return false }
            entry.bytes = bytes
            state.tickets[ticket] = entry
            state.storedBytes += bytes.count
            return true
        }
        guard accepted else { return nil }
        let photo = #"[{"ticket":"\#(ticket)","size":\#(bytes.count)}]"#
        return SampleRecords.UploadReceipt(server: Self.uploadServerNumber, photo: photo, hash: signature(photo))
    }

    /// Turns an upload receipt into a photo in `owner`'s wall album, or nil when the receipt is
    /// forged, belongs to someone else or was saved already.
    func savePhoto(owner: Int, server: Int, photo: String, hash: String, photoBase: String) -> SampleRecords.Photo? {
        guard server == Self.uploadServerNumber, hash == signature(photo),
            let ticket = Self.ticket(in: photo)
        else { return nil }
        return state.withLockedValue { state in
            guard let entry = state.tickets[ticket], entry.owner == owner, let bytes = entry.bytes else { return nil }
            state.tickets[ticket] = nil
            state.nextID += 1
            let saved = SampleRecords.Photo(
                id: state.nextID, albumID: Self.wallAlbumID, ownerID: owner,
                date: Int(Date().timeIntervalSince1970), text: "",
                sizes: SampleDataset.sizes(owner: owner, id: state.nextID, photoBase: photoBase))
            state.addedPhotos[owner, default: []].insert(saved, at: 0)
            state.photoBytes["\(owner)_\(state.nextID)"] = bytes
            return saved
        }
    }

    /// The bytes of photo `id` of `owner`: what was uploaded, or a small deterministic picture
    /// for a built-in photo; nil when there is no such photo.
    func photoBytes(owner: Int, id: Int) -> Data? {
        if let uploaded = state.withLockedValue({ $0.photoBytes["\(owner)_\(id)"] }) { return uploaded }
        guard SampleDataset.exists(owner), (1...SampleDataset.initialPhotoCount).contains(id) else { return nil }
        return DemoPayload.data(size: 4_096 + id)
    }

    private func signature(_ text: String) -> String {
        DemoRoutes.hex(SHA256.hash(data: Data((secret + text).utf8)))
    }

    private static func ticket(in photo: String) -> String? {
        struct Entry: Decodable { var ticket: String }
        return (try? JSONDecoder().decode([Entry].self, from: Data(photo.utf8)))?.first?.ticket
    }
}
