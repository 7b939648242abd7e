import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI
import TestSupport
import Testing

/// Every SampleAPI method end to end against DemoServer: request built, token placed, response
/// validated against the shipped template, model mapped.
@Suite("SampleAPI methods", .serialized, .processGate(.shared, minutes: 5))
struct SampleAPIMethodTests {
    @Test func usersGetMapsUsersWithTheFieldsAskedFor() async throws {
        try await withSampleService { fixture in
            let users = try await APIManager.users([1, 2, 3])
            #expect(users.map(\.id) == [1, 2, 3])
            #expect(users[0].fullName == "Pavel Durov")
            #expect(users[1].fullName == "Anna Ivanova")
            #expect(users[0].photo100?.absoluteString.hasSuffix("1_1_100.jpg") == true)
            #expect(users[0].city != nil && users[2].city == nil)
            #expect(users[0].online == 1 && users[1].online == 0)
            // The first call exchanged the login's refresh token for an access token.
            #expect(fixture.coordinator.refreshCount == 1)
            #expect(fixture.tokens.snapshot.tokenRequests == 1)
        }
    }

    @Test func usersGetWithoutIdsIsTheCurrentUser() async throws {
        try await withSampleService { _ in
            let users = try await APIManager.users(fields: [])
            #expect(users.count == 1 && users[0].id == 1)
            #expect(users[0].photo100 == nil)
        }
    }

    @Test func friendsGetPagesThroughTheWholeList() async throws {
        try await withSampleService { _ in
            var seen: [Int] = []
            var total = 0
            var offset = 0
            repeat {
                let page = try await APIManager.friends(of: 1, offset: offset, count: 7)
                total = page.count
                seen += page.items.map(\.id)
                offset += 7
            } while offset < total
            #expect(total > 30)
            #expect(seen.count == total)
            #expect(Set(seen).count == total)
            #expect(!seen.contains(1) && !seen.contains(13))
            let beyond = try await APIManager.friends(of: 1, offset: total, count: 7)
            #expect(beyond.items.isEmpty && beyond.count == total)
        }
    }

    @Test func wallPostAppearsFirstOnTheWall() async throws {
        try await withSampleService { _ in
            let before = try await APIManager.wall(count: 5)
            #expect(before.count == 25 && before.items.count == 5)
            #expect(before.items.map(\.id) == [25, 24, 23, 22, 21])
            let postID = try await APIManager.postOnWall("Hello from the tests")
            let after = try await APIManager.wall(count: 5)
            #expect(after.count == 26)
            #expect(after.items.first?.id == postID)
            #expect(after.items.first?.text == "Hello from the tests")
            #expect(after.items.first?.postType == "post")
            let second = try await APIManager.wall(offset: 20, count: 20)
            #expect(second.items.count == 6)
        }
    }

    @Test func photosGetAllPages() async throws {
        try await withSampleService { _ in
            let first = try await APIManager.photos(of: 2, count: 5)
            let rest = try await APIManager.photos(of: 2, offset: 5, count: 20)
            #expect(first.count == 12 && rest.count == 12)
            #expect(first.items.count + rest.items.count == 12)
            #expect(first.items.allSatisfy { $0.ownerID == 2 && $0.sizes.count == 2 })
            #expect(first.items.first?.largest?.width == 604)
        }
    }

    @Test func uploadGroupSavesAPhotoThatCanBeDownloadedAndPosted() async throws {
        try await withSampleService { fixture in
            let picture = DemoPayload.data(size: 300_000)
            let sent = Counter()
            let upload = APIManager.uploadWallPhoto(picture, filename: "cat.jpg") { progress in
                if progress.bytesSent > 0 { sent.increment() }
            }
            let photo = try await upload.run()
            #expect(photo.albumID == -14 && photo.ownerID == 1)
            #expect(sent.value > 0)
            let download = DTO.get(try #require(photo.largest?.url))
            _ = try await download.run()
            #expect(download.receivedData == picture)

            let postID = try await APIManager.postOnWall("", photos: [photo])
            let wall = try await APIManager.wall(count: 1)
            #expect(wall.items.first?.id == postID)
            #expect(wall.items.first?.attachments?.first?.photo?.id == photo.id)
            let photos = try await APIManager.photos(count: 1)
            #expect(photos.items.first?.id == photo.id && photos.count == 13)
            #expect(fixture.service.callCounts["photos.saveWallPhoto"] == 1)
        }
    }

    @Test func aReceiptIsSavedOnlyOnce() async throws {
        try await withSampleService { _ in
            let server = try await APIManager.wallUploadServer()
            var form = MultipartFormData()
            form.append(Data("pixels".utf8), name: "photo", filename: "a.jpg")
            let upload = UO.multipart(form, to: server.uploadURL)
            _ = try await upload.run()
            let receipt = try upload.decode(UploadReceipt.self)
            _ = try await APIManager.saveWallPhoto(receipt)
            let again = await apiError { try await APIManager.saveWallPhoto(receipt) }
            #expect(again?.stageName == "server")
            #expect(again?.description.contains("error 121") == true)
        }
    }

    @Test func logoutEndsTheTokenAtTheServerAndHere() async throws {
        try await withSampleService { fixture in
            _ = try await APIManager.users()
            let token = try #require(APIManager.token?.accessToken)
            try await APIManager.logout()
            #expect(APIManager.token == nil)
            // The old token no longer opens anything.
            let probe = DTO.get(
                fixture.server.sampleAPIBaseURL(realm: fixture.realm).appendingPathComponent("users.get"),
                parameters: ["access_token": token])
            probe.values[AuthenticationCoordinator.WithoutToken.self] = true
            _ = try await probe.run()
            #expect(SampleServiceError(body: probe.receivedData)?.code == SampleServiceError.authorizationFailed)
            // Signed out, a call fails cleanly instead of hanging.
            let signedOut = await apiError { try await APIManager.users() }
            #expect(signedOut?.stageName == "transport")
        }
    }

    /// The service cannot be told (its answer is a proxy's HTML page, or nothing answers at
    /// all): the local token is forgotten anyway, and the failure is still reported.
    @Test func logoutForgetsTheTokenWhenTheServerCallFails() async throws {
        try await withSampleService { fixture in
            _ = try await APIManager.users()
            #expect(APIManager.token != nil)
            fixture.service.fault = .htmlPage
            let failed = await apiError { try await APIManager.logout() }
            #expect(failed?.stageName == "parsing", "\(String(describing: failed))")
            #expect(APIManager.token == nil)
        }
        try await withSampleService { _ in
            _ = try await APIManager.users()
            #expect(APIManager.token != nil)
            // Port 9 on loopback: nothing listens (the discard service is never run here).
            APIManager.baseURL = URL(string: "http://127.0.0.1:9/api/demo/method/")
            let unreachable = await apiError { try await APIManager.logout() }
            #expect(unreachable?.stageName == "transport", "\(String(describing: unreachable))")
            #expect(APIManager.token == nil)
        }
    }

    @Test func typedOperationsReportTheirResult() async throws {
        try await withSampleService { _ in
            let result = Locked<Result<Page<WallPost>, APIError>?>(nil)
            let operation = SampleAPI.wall(count: 3).onCompletion { outcome in result.withLock { $0 = outcome } }
            #expect(operation.state == .readyToStart)
            APIManager.asyncQueue.addOperation(operation)
            await operation.finished()
            while result.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(5)) }
            let page = try #require(try result.withLock { $0 }?.get())
            #expect(page.items.count == 3)
            #expect(operation.state == .successFinished)
            #expect(operation.statusCode == 200)
        }
    }
}

/// A counter safe to bump from any thread.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
