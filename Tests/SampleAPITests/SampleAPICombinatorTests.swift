import APILayer
import Foundation
import NetOps
import SampleAPI
import TestSupport
import Testing

/// The typed combinators over SampleAPI's operations, end to end against DemoServer: `combine`
/// of API operations of different models, `map`, `mapError` and `catch` on an API operation.
@Suite("SampleAPI combinators", .serialized, .processGate(.shared, minutes: 5))
struct SampleAPICombinatorTests {
    /// An error of the service's own, to see `mapError` replace the `APIError`.
    struct ScreenError: Error {
        var stage: String
    }

    @Test func combineOfAPIOperationsGivesTheirModels() async throws {
        try await withSampleService { _ in
            let (users, wall, photos) = try await combine(
                SampleAPI.users([1, 2]),
                SampleAPI.wall(of: 1, count: 5),
                SampleAPI.photos(of: 1, count: 3))
            #expect(users.map(\.id) == [1, 2])
            #expect(wall.items.count == 5)
            #expect(photos.items.count == 3)
        }
    }

    @Test func combineThrowsTheAPIErrorOfTheFirstFailure() async throws {
        try await withSampleService { _ in
            let fine = SampleAPI.wall(of: 1, count: 5)
            let failing = SampleAPI.users([999])
            do {
                _ = try await combine(fine, failing)
                Issue.record("combine succeeded")
            } catch let error as APIError {
                #expect(error.stageName == "server")
            }
            #expect(failing.state == .failedFinished)
            #expect(await eventually { fine.isFinishedOrCancelled })
        }
    }

    @Test func mapMapErrorAndCatchOnAnAPIOperation() async throws {
        try await withSampleService { _ in
            let names = try await SampleAPI.users([1, 2]).map { $0.map(\.firstName) }
            #expect(names == ["Pavel", "Anna"])

            do throws(ScreenError) {
                _ = try await SampleAPI.users([999]).mapError { ScreenError(stage: $0.stageName) }
                Issue.record("mapError of a failing call returned")
            } catch {
                #expect(error.stage == "server")
            }

            var stage: String?
            let recovered = await SampleAPI.users([999]).catch { error in
                stage = error.stageName
                return []
            }
            #expect(recovered.isEmpty)
            #expect(stage == "server")
        }
    }
}
