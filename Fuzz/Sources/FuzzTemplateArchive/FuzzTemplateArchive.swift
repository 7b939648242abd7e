import FuzzSupport
import Foundation
import Templater

/// libFuzzer entry: Templater's safe unarchiver given fuzzed ZIP bytes.
///
/// The bytes are written to a file and unpacked into a fresh folder through the public
/// `TemplateStore.unarchiveDefaultTemplates(from:to:)`. Any archive may be refused with a
/// `TemplaterError`, never crash; nothing is written beside the folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplateArchive(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let root = FuzzScratch.root.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: root) }
    let archive = root.appendingPathComponent("input.zip")
    let folder = root.appendingPathComponent("templates")
    do {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data(bytes: bytes, count: count).write(to: archive)
    } catch {
        fatalError("cannot write the fuzz input: \(error)")
    }
    let store = TemplateStore(directory: folder)
    _ = try? store.unarchiveDefaultTemplates(from: archive, to: folder)
    let neighbours = (try? FileManager.default.contentsOfDirectory(atPath: FuzzScratch.root.path)) ?? []
    if neighbours != [root.lastPathComponent] {
        fatalError("something was written beside the unpack folder: \(neighbours)")
    }
    return 0
}

/// The scratch folder of this process: in shared memory when there is one, else in /tmp.
enum FuzzScratch {
    static let root: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        return base.appendingPathComponent("apilayer-fuzz-\(getpid())")
    }()
}

/// The process entry (`FuzzTemplateArchive_main`, see `runLibFuzzer`).
@_cdecl("FuzzTemplateArchive_main")
public func fuzzTemplateArchiveMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { bytes, size in
        guard let bytes else { return 0 }
        return fuzzTemplateArchive(bytes, size)
    }
}
