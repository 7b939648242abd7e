import DemoServer
import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
import TestSupport
#endif

/// The reference's flow for a 401, as written there: the completion closure checks the answer,
/// postpones the operation and gets a token; the replay puts the token into each postponed
/// request (or applies the operation's own modification) and runs it again; a thread in
/// `syncStart()` returns only once the replayed request ended. Against a DemoServer realm, on
/// both engines, each test in a session of its own.
@Suite(.timeLimit(.minutes(2)))
struct PostponeFromCompletionTests {
    /// What the closures heard: which operation, with which status.
    final class Journal: Sendable {
        private let entries = Locked<[(ObjectIdentifier, Int?)]>([])
        func note(_ operation: BaseOperation) { entries.withLock { $0.append((ObjectIdentifier(operation), operation.statusCode)) } }
        var all: [(ObjectIdentifier, Int?)] { entries.withLock { $0 } }
    }

    /// A realm of its own and its protected URL.
    static func realm() async throws -> (base: URL, protected: URL) {
        let server = try await TestServer.get()
        let base = server.baseURL.appendingPathComponent("realm/r\(UUID().uuidString.prefix(8))")
        return (base, base.appendingPathComponent("protected"))
    }

    /// A token the realm issued, from its token endpoint.
    static func freshToken(base: URL, in session: NetworkSession) async throws -> String {
        let request = DTO.post(
            base.appendingPathComponent("oauth/token"), parameters: ["grant_type": "refresh_token", "refresh_token": "seed-1"],
            encoding: .form
        ).on(session)
        try await request.run()
        let answer = try JSONSerialization.jsonObject(with: request.receivedData) as? [String: Any]
        return try #require(answer?["access_token"] as? String)
    }

    /// The reference's completion: a 401 postpones the operation (once per token round) and
    /// starts getting a token, whose arrival replays every postponed request with it.
    static func checkingCompletion(
        journal: Journal, session: NetworkSession, base: URL, modification: (@Sendable (inout URLRequest) -> Void)? = nil
    ) -> @Sendable (BaseOperation) -> Void {
        { operation in
            journal.note(operation)
            guard operation.statusCode == 401 else { return }
            #expect(BaseOperation.postpone(operation, modification: modification))
            Task {
                let token = try await freshToken(base: base, in: session)
                session.performPostponedOperations { $0.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            }
        }
    }

    @Test(arguments: TestEngine.allCases)
    func aSyncStartReturnsOnceTheReplayedRequestEnded(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let (base, protected) = try await Self.realm()
        let journal = Journal()
        let operation = DTO.get(protected, headers: ["Authorization": "Bearer stale"]).on(session)
        operation.onCompletion(Self.checkingCompletion(journal: journal, session: session, base: base))
        await onThreads(1) { _ in operation.syncStart() }
        let successor = try #require(operation.successor)
        // The thread returned after the successor's end: the closure heard both, in order, each
        // with its own operation.
        #expect(journal.all.map(\.1) == [401, 200])
        #expect(journal.all.map(\.0) == [ObjectIdentifier(operation), ObjectIdentifier(successor)])
        #expect(operation.state == .failedFinished)
        #expect(successor.state == .successFinished)
        #expect(operation.latestSuccessor === successor)
        #expect(operation.mayReleaseSyncWaiter)
        #expect(successor.sentRequest?.value(forHTTPHeaderField: "Authorization")?.hasPrefix("Bearer ") == true)
        #expect(successor.sentRequest?.value(forHTTPHeaderField: "Authorization") != "Bearer stale")
        #expect(session.postponedOperations.isEmpty)
    }

    /// `run()` returns once the successor succeeded, and throws nothing.
    @Test(arguments: TestEngine.allCases)
    func runFollowsTheSuccessor(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let (base, protected) = try await Self.realm()
        let journal = Journal()
        let operation = DTO.get(protected, headers: ["Authorization": "Bearer stale"]).on(session)
        operation.onCompletion(Self.checkingCompletion(journal: journal, session: session, base: base))
        try await operation.run()
        #expect(operation.successor?.state == .successFinished)
        #expect(journal.all.map(\.1) == [401, 200])
    }

    /// An operation postponed with a modification of its own gets it at the replay, instead of
    /// the replay's update (the token as a query parameter here).
    @Test(arguments: TestEngine.allCases)
    func anOperationsOwnModificationWins(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let (base, protected) = try await Self.realm()
        let journal = Journal()
        let token = Locked<String?>(nil)
        let operation = DTO.get(protected).on(session)
        operation.onCompletion { ended in
            journal.note(ended)
            guard ended.statusCode == 401 else { return }
            #expect(
                BaseOperation.postpone(ended) { request in
                    guard let value = token.withLock({ $0 }), let url = request.url,
                        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                    else { return }
                    components.queryItems = [URLQueryItem(name: "access_token", value: value)]
                    request.url = components.url
                })
            Task {
                let fresh = try await Self.freshToken(base: base, in: session)
                token.withLock { $0 = fresh }
                session.performPostponedOperations { $0.setValue("Bearer wrong", forHTTPHeaderField: "Authorization") }
            }
        }
        try await operation.run()
        let successor = try #require(operation.successor)
        #expect(successor.state == .successFinished)
        #expect(successor.sentRequest?.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(successor.sentRequest?.url?.query?.hasPrefix("access_token=") == true)
    }

    /// A refresh that fails: the successors end with its error, first parked first, and every
    /// waiter returns.
    @Test(arguments: TestEngine.allCases)
    func aFailedRefreshEndsTheSuccessors(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let (_, protected) = try await Self.realm()
        let journal = Journal()
        let operations = (0..<3).map { _ in DTO.get(protected, headers: ["Authorization": "Bearer stale"]).on(session) }
        for operation in operations {
            operation.onCompletion { ended in
                journal.note(ended)
                if ended.statusCode == 401 { BaseOperation.postpone(ended) }
            }
            operation.start()
        }
        #expect(await eventually { session.postponedOperations.count == 3 })
        let refusal = NetOpsError(.authenticationFailed(reason: "token endpoint said invalid_grant"), url: nil)
        session.removeAllPostponedOperations(failingWith: refusal)
        for operation in operations {
            await #expect(throws: NetOpsError.self) { try await operation.run() }
            #expect(operation.successor?.error == refusal)
            #expect(operation.mayReleaseSyncWaiter)
        }
        #expect(journal.all.count == 6)
    }

    /// Cancelling a successor that waits for its replay ends it and releases its waiters.
    @Test func cancellingAWaitingSuccessorEndsIt() async throws {
        let session = TestEngine.nio.makeSession()
        let (_, protected) = try await Self.realm()
        let operation = DTO.get(protected).on(session)
        operation.onCompletion { ended in if ended.statusCode == 401 { BaseOperation.postpone(ended) } }
        operation.start()
        #expect(await eventually { session.postponedOperations.count == 1 })
        let successor = try #require(operation.successor)
        #expect(successor.isPostponed)
        successor.cancel()
        await operation.finished()
        #expect(successor.state == .cancelled)
        #expect(session.postponedOperations.isEmpty)
    }

    /// Past its completions (or cancelled) an operation is not postponed.
    @Test func anOperationPastItsEndIsNotPostponed() async throws {
        let operation = DTO.get(try await TestServer.url("status/401")).on(TestEngine.nio.makeSession())
        _ = try? await operation.run()
        #expect(!BaseOperation.postpone(operation))
        #expect(operation.successor == nil)
    }
}
