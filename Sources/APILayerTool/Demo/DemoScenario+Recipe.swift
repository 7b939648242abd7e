import APILayer
import Foundation
import NetOps
import SampleAPI

/// The sections that go through APIManager and SampleAPI's recipe.
extension DemoScenario {
    func usersValidatedAndMapped() async {
        report.section("users.get: request built, token fetched, response validated and mapped")
        do {
            let users = try await APIManager.users([1, 2, 3])
            for user in users {
                let city = user.city?.title ?? "no city"
                report.say("  #\(user.id) \(user.fullName) — \(city), \(user.isOnline ? "online" : "offline")")
            }
            report.check(
                users.map(\.id) == [1, 2, 3] && users[0].fullName == "Pavel Durov",
                "3 users as [User], checked against users.get.json (types, lengths, ranges)")
            report.check(
                coordinator.refreshCount == 1,
                "the login's refresh token was exchanged for an access token on the first call (1 refresh)")
        } catch {
            failed("users.get", error)
        }
    }

    func pagination() async {
        report.section("friends.get: paging with offset and count")
        do {
            var seen: [Int] = []
            var total = 0
            var pages = 0
            repeat {
                let page = try await APIManager.friends(offset: seen.count, count: 10)
                total = page.count
                seen += page.items.map(\.id)
                pages += 1
                if page.items.isEmpty { break }
            } while seen.count < total
            report.say("  \(pages) pages of up to 10: friends #\(seen.prefix(5).map(String.init).joined(separator: ", #")) …")
            report.check(seen.count == total && Set(seen).count == total, "\(total) friends, each exactly once")
        } catch {
            failed("friends.get", error)
        }
    }

    func brokenTemplate() async {
        report.section("A response that breaks its template")
        do {
            _ = try await APIManager.users([12, 13])
            report.check(false, "users.get for a deleted account passed validation")
        } catch {
            guard case let .validation(errors) = error.stage else { return failed("users.get [12, 13]", error) }
            for failure in errors { report.say("  \(failure)") }
            report.check(
                errors.contains { $0.path == "/response/1/first_name" && $0.rule == "lengthMustBeEqualOrGreaterThan" },
                "caught at stage \(error.stageName): /response/1/first_name breaks lengthMustBeEqualOrGreaterThan")
        }
    }

    func expiredToken() async {
        report.section("An expired token: 10 calls refused, one refresh, all replayed")
        let refreshes = coordinator.refreshCount
        let grants = tokens.snapshot.tokenRequests
        let rejected = tokens.snapshot.rejected
        // Every token of the realm dies; the token endpoint answers after 300 ms, so all ten
        // calls are refused (body-level error 5) and parked while the one refresh runs.
        tokens.configure(mode: nil, delay: 0.3, lifetime: nil, maxUses: nil, expireAll: true)
        defer { tokens.configure(mode: nil, delay: 0, lifetime: nil, maxUses: nil, expireAll: false) }
        let started = Date()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                group.addTask { (try? await APIManager.wall(offset: index, count: 1).items.count) == 1 }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        let refused = tokens.snapshot.rejected - rejected
        let newRefreshes = coordinator.refreshCount - refreshes
        report.say("  server refused \(refused) requests with {\"error\":{\"error_code\":5,…}}")
        report.say(
            "  \(newRefreshes) refresh (token endpoint called \(tokens.snapshot.tokenRequests - grants) time), token version \(coordinator.tokenVersion)"
        )
        report.figure("refreshes", Double(newRefreshes))
        report.check(
            results.count == 10 && results.allSatisfy { $0 } && newRefreshes == 1 && refused >= 1,
            "10/10 calls succeeded after exactly 1 refresh, in \(Int(milliseconds(since: started))) ms")
        report.check(coordinator.parkingLot.operations.isEmpty, "no operation left parked")
    }

    func profileScreen() async {
        report.section("A profile screen as a group operation (user + photos + wall)")
        do {
            let started = Date()
            let group = APIManager.profile(of: 2, photoCount: 6, postCount: 3)
            // The group's progress, as a screen's loading bar would show it: requests done of
            // requests started, each step once.
            let steps = Locked<[String]>([])
            group.onProgress { _, progress in
                let step = "\(progress.completedOperations)/\(progress.totalOperations)"
                steps.withLock { if $0.last != step { $0.append(step) } }
            }
            let profile = try await group.run()
            report.say(
                "  \(profile.user.fullName): \(profile.photos.count) photos, \(profile.wall.count) posts; newest: \"\(profile.wall.items.first?.text ?? "")\""
            )
            report.check(
                profile.user.id == 2 && profile.photos.items.count == 6 && profile.wall.items.count == 3,
                "three requests side by side in one group, \(Int(milliseconds(since: started))) ms")
            let progress = group.progress
            report.say("  progress seen: \(steps.withLock { $0 }.joined(separator: " → ")) requests done")
            report.check(
                progress.completedOperations == 3 && progress.totalOperations == 3 && progress.bytesReceived > 0,
                "group progress: \(progress.completedOperations) of \(progress.totalOperations) requests, \(progress.bytesReceived) bytes received")
        } catch {
            failed("profile", error)
        }

        // The same screen without a group: `combine` of operations of different models gives a
        // typed tuple.
        do {
            let (users, wall) = try await combine(SampleAPI.users([2]), SampleAPI.wall(of: 2, count: 3))
            report.check(
                users.first?.id == 2 && wall.items.count == 3,
                "combine(users, wall): ([User], Page<WallPost>) = (\(users.count) user, \(wall.items.count) posts)")
        } catch {
            failed("combine", error)
        }

        // A screen holding that group and one more call, on a slow server (2 s per call),
        // closed before it loads: one cancel reaches the nested group's requests too.
        service.latency = 2
        defer { service.latency = 0 }
        let callsBefore = service.callCounts.values.reduce(0, +)
        let nested = APIManager.profile(of: 3)
        let screen = APIManager.group { context in
            async let profile = context.run(nested)
            async let friends = APIManager.friends(of: 3, count: 5)
            _ = try await (profile, friends)
        }
        let queue = OperationQueue()
        queue.addOperation(screen)
        let waitStarted = Date()
        while service.callCounts.values.reduce(0, +) < callsBefore + 4, Date().timeIntervalSince(waitStarted) < 5 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let started = Date()
        screen.cancel()
        await screen.finished()
        let elapsed = milliseconds(since: started)
        report.figure("profile-cancel-ms", elapsed)
        report.check(
            screen.state == .cancelled && nested.state == .cancelled && elapsed < 1_000,
            "screen closed mid-load: the outer group, the nested profile group and their 4 requests cancelled in \(Int(elapsed)) ms (the server would take 2 s)"
        )
    }

    func stubsOffline() async {
        report.section("Stubs: answers from the templates, no network")
        let savedBase = APIManager.baseURL
        APIManager.baseURL = URL(string: "http://127.0.0.1:1/offline/")
        APIManager.stubMode = .immediate
        defer {
            APIManager.stubMode = .off
            APIManager.baseURL = savedBase
        }
        let before = server.statistics.requests
        do {
            let user = try await APIManager.users([1]).first
            let wall = try await APIManager.wall()
            report.say("  users.get → \(user?.fullName ?? "nobody"); wall.get → \"\(wall.items.first?.text ?? "")\"")
            report.check(
                user?.fullName == "Pavel Durov" && wall.count == 1 && server.statistics.requests == before,
                "typed models from users.get.json and wall.get.json; the server saw no request")
        } catch {
            failed("stubs", error)
        }
    }

    func logout() async {
        report.section("auth.logout")
        do {
            let token = APIManager.token?.accessToken ?? ""
            try await APIManager.logout()
            let probe = onEngine(
                DTO.get(server.sampleAPIBaseURL(realm: realm).appendingPathComponent("users.get"), parameters: ["access_token": token]))
            probe.values[AuthenticationCoordinator.WithoutToken.self] = true
            _ = try? await probe.run()
            let refusal = SampleServiceError(body: probe.receivedData)
            report.check(
                APIManager.token == nil && refusal?.code == SampleServiceError.authorizationFailed,
                "token revoked at the server (\(refusal?.description ?? "accepted")) and forgotten here")
        } catch {
            failed("auth.logout", error)
        }
    }
}
