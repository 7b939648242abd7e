import Foundation
import NetOps
import TestSupport
import Testing

/// Uses the public API from `@Sendable` contexts, so Swift 6's checks keep it honest.
struct SendableTests {
    @Test(arguments: TestEngine.allCases) func operationsCrossConcurrencyDomains(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let operation = DTO.get(url).on(engine)
        let fromTask = try await Task.detached { try await operation.run() }.value
        #expect(fromTask === operation)
        let queue = OperationQueue()
        let box = DTO.get(url).on(engine)
        queue.addOperation(box)
        queue.addBarrierBlock { @Sendable in _ = box.state }
        await box.finished()
        let error: any Error & Sendable = NetOpsError(.cancelled, url: url)
        #expect(error is NetOpsError)
        let progress: TransferProgress = await Task.detached { operation.progress }.value
        #expect(progress.bytesReceived > 0)
    }

    @Test func mimeTypesAndGroupProgressCrossConcurrencyDomains() async throws {
        let type: MIMEType = await Task.detached { MIMEType.detect(Data("%PDF-1.4".utf8), filename: "a.bin") }.value
        #expect(type == .pdf)
        let group = GO<Int> { _ in 1 }
        let progress: GroupProgress = try await Task.detached {
            _ = try await group.run()
            return group.progress
        }.value
        #expect(progress == GroupProgress())
    }

    @Test(arguments: TestEngine.allCases) func typedCombinatorsAndGroupSuspensionCrossConcurrencyDomains(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("bytes/16")
        let (data, count) = try await Task.detached {
            try await combine(DTO.get(url).on(engine), GO<Int> { _ in 2 })
        }.value
        #expect(data.receivedData.count == 16 && count == 2)
        let result = await Task.detached { data.result.map { (try? $0.get()) === data } }.value
        #expect(result == true)
        let group = GO<Int> { _ in 3 }
        let suspended = await Task.detached { group.suspend() }.value
        #expect(!suspended, "a group that has not started cannot be suspended")
        let mapped = try await Task.detached { try await group.map { $0 + 1 } }.value
        #expect(mapped == 4)
    }
}
