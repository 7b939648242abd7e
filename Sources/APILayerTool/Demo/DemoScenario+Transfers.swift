import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI

/// The sections about transfers and the life of operations.
extension DemoScenario {
    func photoUploadAndDownload() async {
        report.section("A wall photo: upload in three steps (a group), post it, download it back")
        let picture = DemoPayload.data(size: 8 << 20)
        let upBar = report.progressBar("upload  ")
        do {
            let photo = try await APIManager.uploadWallPhoto(picture, filename: "sunset.jpg") { progress in
                if let total = progress.totalBytesToSend, total > 0 { upBar(Double(progress.bytesSent) / Double(total)) }
            }.run()
            report.check(
                photo.albumID == -14,
                "photos.getWallUploadServer → multipart POST of \(picture.count >> 20) MiB → photos.saveWallPhoto: photo #\(photo.id)")
            let postID = try await APIManager.postOnWall("Sunset", photos: [photo])
            let newest = try await APIManager.wall(count: 1).items.first
            report.check(
                newest?.id == postID && newest?.attachments?.first?.photo?.id == photo.id,
                "wall.post #\(postID) carries it, and wall.get shows it first")

            guard let source = photo.largest?.url else { return report.check(false, "the saved photo has no size to download") }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-demo-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let downBar = report.progressBar("download")
            let download = onEngine(DO.get(source, to: folder.appendingPathComponent("sunset.jpg")))
                .onProgress { _, progress in progress.fractionCompleted.map(downBar) }
            _ = try await download.run()
            let bytes = (try? Data(contentsOf: download.destination)) ?? Data()
            report.check(hex(bytes) == hex(picture), "downloaded to a file: \(bytes.count) bytes, SHA-256 equal to what was uploaded")
        } catch {
            failed("photo upload", error)
        }
    }

    func suspendAndResume() async {
        report.section("A download suspended three times and resumed (Range + If-Range)")
        let size = 12 << 20
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let operation = onEngine(DO.get(url("bytes/\(size)?rate=\(8 << 20)"), to: folder.appendingPathComponent("payload.bin")))
        operation.start()
        for pause in 1...3 {
            let threshold = Int64(size * pause / 4)
            while operation.progress.bytesReceived < threshold, operation.isWorkingOrInProcess {
                try? await Task.sleep(for: .milliseconds(10))
            }
            guard operation.suspend() else { break }
            report.say("  suspended at \(operation.progress.bytesReceived >> 10) KiB (\(operation.stateDescription))")
            try? await Task.sleep(for: .milliseconds(150))
            operation.resume()
        }
        await operation.finished()
        let bytes = (try? Data(contentsOf: operation.destination)) ?? Data()
        let counts = operation.resumptionCounts
        report.check(
            operation.state == .successFinished && hex(bytes) == hex(DemoPayload.data(size: size)),
            "\(bytes.count) bytes on disk, byte-identical to the server's after \(counts.ranged) ranged resumptions")

        // A group suspends what it runs: two bodies side by side, paused and continued as one.
        let half = 4 << 20
        let parts = [onEngine(DTO.get(url("bytes/\(half)?rate=\(8 << 20)"))), onEngine(DTO.get(url("bytes/\(half)?rate=\(8 << 20)")))]
        let group = GO<Int> { context in
            async let first = context.run(parts[0])
            async let second = context.run(parts[1])
            return try await first.receivedData.count + second.receivedData.count
        }
        group.start()
        while parts.contains(where: { $0.progress.bytesReceived < Int64(half / 4) && $0.isWorkingOrInProcess }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if group.suspend() {
            report.say(
                "  group \(group.stateDescription): its requests \(parts.map(\.stateDescription).joined(separator: ", ")) at \(parts.map { String($0.progress.bytesReceived >> 10) }.joined(separator: " and ")) KiB"
            )
            try? await Task.sleep(for: .milliseconds(150))
            group.resume()
        }
        let total = (try? await group.run()) ?? 0
        report.check(
            group.state == .successFinished && total == 2 * half
                && parts.allSatisfy { hex($0.receivedData) == hex(DemoPayload.data(size: half)) },
            "a group suspended and resumed as one: both bodies complete and byte-identical")
    }

    func ownerCancellation() async {
        report.section("Owner cancellation: a screen closes, its queued calls go")
        final class WallScreen {}
        let screen = WallScreen()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        queue.isSuspended = true
        service.latency = 1
        defer { service.latency = 0 }
        let completions = Locked<[String]>([])
        var operations: [BaseOperation] = []
        for index in 0..<10 {
            let operation = SampleAPI.wall(offset: index, count: 1)
            operation.owner = screen
            operation.onCompletion { result in
                completions.withLock { $0.append((try? result.get()) == nil ? "failed" : "loaded") }
            }
            queue.addOperation(operation)
            operations.append(operation)
        }
        queue.isSuspended = false
        try? await Task.sleep(for: .milliseconds(100))
        let running = operations.filter(\.isExecuting).count
        let cancelled = BaseOperation.cancelAllOperations(ownedBy: screen, in: queue)
        for operation in operations { await operation.finished() }
        while completions.withLock({ $0.count }) < operations.count { try? await Task.sleep(for: .milliseconds(5)) }
        try? await Task.sleep(for: .milliseconds(50))
        let outcome = completions.withLock { $0 }
        report.check(
            cancelled == 10 && operations.allSatisfy { $0.state == .cancelled },
            "cancelAllOperations(ownedBy:) cancelled \(cancelled) operations (\(running) running, \(10 - running) queued); each ended .cancelled")
        report.check(
            outcome.count == 10 && outcome.allSatisfy { $0 == "failed" },
            "each completion called exactly once, with an APIError at stage transport")
    }

    func timeouts() async {
        report.section("A fractional idle timeout (FoundationNetworking would truncate 0.5 s to 0)")
        let operation = onEngine(DTO.get(url("delay?seconds=3")))
        operation.idleTimeout = 0.5
        let started = Date()
        _ = try? await operation.run()
        let elapsed = Date().timeIntervalSince(started)
        report.check(
            operation.error?.isTimeout == true && abs(elapsed - 0.5) < 0.3,
            "failed after \(String(format: "%.2f", elapsed)) s: \(operation.error.map(String.init(describing:)) ?? "no error")")
    }
}
