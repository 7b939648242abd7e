import Foundation
import TestSupport

/// Runs real archive tools (Info-ZIP `zip`, Python's `zipfile`) to make test fixtures.
enum ArchiveTools {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` with `arguments` in `folder` on a thread of its own (never holding a
    /// cooperative thread while it waits, so the in-process servers of other tests keep
    /// answering); throws with its stderr when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in folder: URL? = nil) async throws -> String {
        let (status, output, errors) = try await runChildProcess(
            URL(fileURLWithPath: "/usr/bin/env"), [executable] + arguments, in: folder,
            environment: ["LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"])
        guard status == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(errors)")
        }
        return output
    }

    /// Runs `script` with `python3`, passing `arguments`.
    @discardableResult
    static func python(_ script: String, _ arguments: [String] = [], in folder: URL? = nil) async throws -> String {
        try await run("python3", ["-c", script] + arguments, in: folder)
    }

    /// The fixture maker: `python3 -c fixtureScript MODE OUT`.
    static let fixtureScript = #"""
        import sys, zipfile, warnings
        warnings.simplefilter("ignore")
        mode, out = sys.argv[1], sys.argv[2]
        GOOD = b'{"response": {"id": 1}}'

        def patch_field(path, size, central, local_offset):
            # Rewrites a 4-byte size field (at `central` in every central record, `local_offset` in its
            # local header): a lying archive.
            b = bytearray(open(path, "rb").read())
            eocd = b.rfind(b"PK\x05\x06")
            count = int.from_bytes(b[eocd + 10:eocd + 12], "little")
            p = int.from_bytes(b[eocd + 16:eocd + 20], "little")
            for _ in range(count):
                local = int.from_bytes(b[p + 42:p + 46], "little")
                b[p + central:p + central + 4] = size.to_bytes(4, "little")
                b[local + local_offset:local + local_offset + 4] = size.to_bytes(4, "little")
                n, e, c = (int.from_bytes(b[p + k:p + k + 2], "little") for k in (28, 30, 32))
                p += 46 + n + e + c
            open(path, "wb").write(b)

        def patch_sizes(path, size):
            patch_field(path, size, 24, 22)             # uncompressed size

        def patch_compressed_sizes(path, size):
            patch_field(path, size, 20, 18)             # compressed size

        def z(method=zipfile.ZIP_DEFLATED):
            return zipfile.ZipFile(out, "w", method)

        if mode == "dotdot":
            with z() as a: a.writestr("ok.get.json", GOOD); a.writestr("../escaped.json", GOOD)
        elif mode == "nested-dotdot":
            with z() as a: a.writestr("templates/../../escaped.json", GOOD)
        elif mode == "deep-dotdot":
            with z() as a: a.writestr("issues/list.json", GOOD); a.writestr("issues/comments/../../../escaped.json", GOOD)
        elif mode == "dot-segment":
            with z() as a: a.writestr("issues/./list.json", GOOD)
        elif mode == "empty-segment":
            with z() as a: a.writestr("issues//list.json", GOOD)
        elif mode == "nested-absolute":
            with z() as a: a.writestr(sys.argv[3] + "/issues/list.json", GOOD)
        elif mode == "symlinked-folder":
            # A link named like a folder, then a file "inside" it: extracting naively writes through the link.
            with z() as a:
                info = zipfile.ZipInfo("issues")
                info.create_system = 3
                info.external_attr = (0o120777 << 16)
                a.writestr(info, sys.argv[3])
                a.writestr("issues/escaped.json", GOOD)
        elif mode == "nested-duplicate":
            with z() as a: a.writestr("issues/list.json", GOOD); a.writestr("issues/list.json", b'{"response": 2}')
        elif mode == "file-and-folder":
            with z() as a: a.writestr("issues", b"x"); a.writestr("issues/list.json", GOOD)
        elif mode == "nested":
            # Folder entries, nested templates, hidden files, a name no template may have.
            with z() as a:
                a.writestr("issues/", b"")
                a.writestr("issues/list-for-repo.json", b'{"response": [{"id": 1}]}')
                a.writestr("repos/issues/comments/", b"")
                a.writestr("repos/issues/comments/list.json", b'{"response": {"n": 2}}')
                a.writestr("users.get.json", GOOD)
                a.writestr("__MACOSX/issues/._list-for-repo.json", b"\0\5\x16\7")
                a.writestr(".git/config.json", GOOD)
                a.writestr("issues/b..c/x.json", GOOD)
                a.writestr("issues/README.md", b"docs")
        elif mode == "absolute":
            with z() as a: a.writestr(sys.argv[3], GOOD)
        elif mode == "backslash":
            with z() as a: a.writestr("..\\escaped.json", GOOD)
        elif mode == "symlink":
            with z() as a:
                info = zipfile.ZipInfo("link.get.json")
                info.create_system = 3
                info.external_attr = (0o120777 << 16)
                a.writestr(info, "/etc/passwd")
        elif mode == "duplicate":
            with z() as a: a.writestr("users.get.json", GOOD); a.writestr("users.get.json", b'{"response": 2}')
        elif mode == "many":
            with z() as a:
                for i in range(int(sys.argv[3])): a.writestr("m%d.get.json" % i, GOOD)
        elif mode == "large":
            with z(zipfile.ZIP_STORED) as a: a.writestr("large.get.json", b'{"response": "' + b"x" * int(sys.argv[3]) + b'"}')
        elif mode == "bomb":
            with z() as a: a.writestr("bomb.get.json", b"\0" * (50 << 20))
        elif mode == "lying-bomb":
            with z() as a: a.writestr("bomb.get.json", b"\0" * (8 << 20))
            patch_sizes(out, 100)
        elif mode == "lying-stored":
            with z(zipfile.ZIP_STORED) as a: a.writestr("big.get.json", b'{"response": "' + b"y" * 5000 + b'"}')
            patch_sizes(out, 10)
        elif mode == "lying-compressed":
            with z() as a: a.writestr("big.get.json", b'{"response": "' + b"z" * 5000 + b'"}')
            patch_compressed_sizes(out, 0xFFFFFFF0)
        elif mode == "zip64-locator-beyond-file":
            # Entry counts of 0xFFFF call for ZIP64, and the inserted locator puts the ZIP64 end record
            # far beyond the file, past Int64 (the archive fuzzer's crash).
            with z() as a: a.writestr("users.get.json", GOOD)
            b = bytearray(open(out, "rb").read())
            eocd = b.rfind(b"PK\x05\x06")
            b[eocd + 8:eocd + 12] = b"\xff\xff\xff\xff"
            locator = b"PK\x06\x07" + (0).to_bytes(4, "little") + (0xFFFFFFFFFFFFFF00).to_bytes(8, "little") + (1).to_bytes(4, "little")
            b[eocd:eocd] = locator
            open(out, "wb").write(b)
        elif mode == "good":
            # Folders, Unicode names, a README (skipped), a broken template and invalid rules (rejected).
            method = zipfile.ZIP_STORED if sys.argv[3] == "stored" else zipfile.ZIP_DEFLATED
            with z(method) as a:
                a.writestr("templates/", b"")
                a.writestr("templates/users.get.json", b'{"response": [{"id": 1, "id-Rules": {"minimum": 1}}]}')
                a.writestr("templates/nested/wall.post.json", b'{"response": {"post_id": 7}}')
                a.writestr("пользователи.get.json", '{"ответ": "да"}'.encode())
                a.writestr("README.txt", b"not a template")
                a.writestr("broken.get.json", b'{"response": ')
                a.writestr("badrules.get.json", b'{"x": 1, "x-Rules": {"minimun": 1}}')
        else:
            sys.exit("unknown mode " + mode)
        """#

    /// Makes fixture `mode` at `out` with Python's zipfile.
    static func fixture(_ mode: String, at out: URL, _ extra: [String] = []) async throws {
        try await python(fixtureScript, [mode, out.path] + extra)
    }
}
