import Foundation

/// Turns JSON into Codable models.
public enum Mapper {
    /// Decodes `type` from JSON `data`.
    ///
    /// - Throws: the `DecodingError` of `JSONDecoder`.
    public static func map<Model: Decodable>(_ type: Model.Type, from data: Data) throws -> Model {
        try JSONDecoder().decode(type, from: data)
    }
}
