import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What postponing adds to an operation, boxed so an operation that is never postponed carries
/// one reference: the request change it wants at its replay, and, for one postponed after it
/// ended, the successor that replaces it. Mutated only under the operation's lock.
final class Postponement: @unchecked Sendable {
    /// The change made to this operation's request at its replay, instead of the lot's.
    var modification: (@Sendable (inout URLRequest) -> Void)?
    /// The fresh copy that runs in place of this ended operation.
    var successor: BaseOperation?
    /// This operation is a successor still waiting in its lot for the replay that starts it.
    var awaitsReplayStart = false
}

extension BaseOperation {
    /// The operation that replaced this one when it was postponed after it ended (from its
    /// completion closure, as a service that checks each answer itself does); nil otherwise.
    ///
    /// The successor is a fresh operation of the same kind with this one's request, settings,
    /// session, owner, call values and closures: at the replay its request is updated and it
    /// runs, and the closures hear it, with the successor as their argument. Those waiting for
    /// this operation (`syncStart()`, `run()`, `finished()`) wait for the successor's end.
    public var successor: BaseOperation? { withLock { storage.postponement?.successor } }

    /// This operation, or the last of its successors: the one whose outcome counts.
    public var latestSuccessor: BaseOperation {
        var latest: BaseOperation = self
        while let next = latest.successor { latest = next }
        return latest
    }

    /// The change `modification` of the request at the replay, kept with the operation.
    func setModificationLocked(_ modification: (@Sendable (inout URLRequest) -> Void)?) {
        guard let modification else { return }
        postponementLocked.modification = modification
    }

    /// The operation's postponement record, made on first use. Call with the lock held.
    var postponementLocked: Postponement {
        if let existing = storage.postponement { return existing }
        let made = Postponement()
        storage.postponement = made
        return made
    }

    /// Postpones an operation that is delivering its end (its completion closures run): a
    /// successor takes its place in its session's lot and its waiters move to the successor.
    /// False when it is past that point, was cancelled, or is of a kind that cannot be copied.
    func postponeEnded(modification: (@Sendable (inout URLRequest) -> Void)?) -> Bool {
        let taken = withLock { () -> (BaseOperation, NetworkSession)? in
            let listeners = storage.listeners
            guard machine.state == .successFinished || machine.state == .failedFinished,
                listeners.completionsTaken, !listeners.waitersReleased, storage.postponement?.successor == nil,
                let successor = makeSuccessorLocked()
            else { return nil }
            let session = storage.frozen?.session ?? storage.settings.privateSession ?? NetworkSession.shared
            successor.storage.settings = storage.settings
            successor.storage.settings.privateSession = session
            successor.storage.listeners.completionHandlers = listeners.completionHandlers
            successor.storage.listeners.nonBlockingCompletions = listeners.nonBlockingCompletions
            successor.storage.listeners.progressHandlers = listeners.progressHandlers
            successor.storage.listeners.stateHandlers = listeners.stateHandlers
            successor.lockedDelegate = lockedDelegate
            successor.storage.ownership.owner = storage.ownership.owner
            successor.storage.ownership.ownerIdentifier = storage.ownership.ownerIdentifier
            successor.storage.ownership.ownerID = storage.ownership.ownerID
            successor.storage.values = storage.values
            let record = successor.postponementLocked
            record.awaitsReplayStart = true
            record.modification = modification
            successor.storage.parkedIn = session.parkingLot
            postponementLocked.successor = successor
            return (successor, session)
        }
        guard let (successor, session) = taken else { return false }
        session.parkingLot.add(successor, ticket: BaseOperation.successorTicket)
        return true
    }

    /// A fresh, unstarted operation of this one's kind, request and body; nil for kinds this
    /// module cannot copy (an `APIOperation`, whose 401s its API's coordinator handles). Call
    /// with the lock held (the successor's own lock is not taken: nothing else knows it yet).
    private func makeSuccessorLocked() -> BaseOperation? {
        let request = storage.request
        switch self {
        case is DataTaskOperation:
            return DataTaskOperation(built: request)
        case let download as DownloadOperation:
            return DownloadOperation(built: request, destination: download.destination)
        case is UploadOperation:
            // A form gets a body file of its own: this operation deletes its file when released.
            if let form = deferredForm {
                let file = MultipartFormData.temporaryBodyFile()
                return UploadOperation(built: request, body: .file(file), ownedBodyFile: file, deferredForm: form)
            }
            return UploadOperation(built: request, body: storage.body)
        default:
            return nil
        }
    }

    /// Starts a successor waiting for its replay, its request changed by its own modification
    /// or else `update`; true when this was such a successor.
    func startAsSuccessor(update: (@Sendable (inout URLRequest) -> Void)?, on queue: OperationQueue?) -> Bool {
        let waiting = withLock { () -> Bool in
            guard let record = storage.postponement, record.awaitsReplayStart else { return false }
            record.awaitsReplayStart = false
            storage.parkedIn = nil
            if let change = record.modification ?? update, case var .success(request) = storage.request {
                change(&request)
                storage.request = .success(request)
            }
            return true
        }
        guard waiting else { return false }
        if let queue { queue.addOperation(self) } else { start() }
        return true
    }

    /// Ends a successor waiting for its replay with `error`; true when this was one.
    func failAsSuccessor(with error: NetOpsError) -> Bool {
        let waiting = withLock { () -> Bool in
            guard let record = storage.postponement, record.awaitsReplayStart else { return false }
            record.awaitsReplayStart = false
            storage.parkedIn = nil
            storage.request = .failure(error)
            return true
        }
        // A request that cannot go fails the operation at its start, with that error.
        if waiting { start() }
        return waiting
    }
}
