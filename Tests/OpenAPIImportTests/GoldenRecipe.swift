import Foundation

/// The committed recipe enum written from `Fixtures/inventory.yaml` (`InventoryAPI.swift`, which
/// this target compiles and the conformance tests call).
enum GoldenRecipe {
    /// The text of `InventoryAPI.swift` beside this file.
    static func text() throws -> String {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("InventoryAPI.swift")
        return try String(contentsOf: file, encoding: .utf8)
    }
}
