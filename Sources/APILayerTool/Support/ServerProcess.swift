import Foundation

/// DemoServer running in a child process (`apilayer serve`), so a benchmark measures only the
/// client's CPU time and memory.
final class ServerProcess {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    /// `http://127.0.0.1:PORT/`
    let baseURL: URL

    /// Starts the child and waits for it to listen.
    init() throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let (port, text) = Self.listeningPort(on: output)
        guard let port else {
            process.terminate()
            throw ServerProcessError(message: "the server process did not start: '\(text)'")
        }
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// Stops the child and waits for it to exit.
    func stop() {
        try? input.fileHandleForWriting.write(contentsOf: Data("stop\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    struct ServerProcessError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

extension ServerProcess {
    /// Reads the first line a child server prints on `output`, byte by byte (nothing past it is
    /// consumed): its port when the line is `listening on PORT`, and the line itself.
    static func listeningPort(on output: Pipe) -> (port: Int?, line: String) {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on ") else { return (nil, text) }
        return (Int(text.dropFirst("listening on ".count)), text)
    }
}
