import Foundation
import Yams

/// The OpenAPI 3.1 document of the control API (docs/openapi.yaml, embedded in the binary by
/// deploy/embed-openapi.sh), served as JSON at `/api/v1/openapi.json`.
enum OpenAPIDocument {
    /// The document as JSON with sorted keys. Converted once, on first use.
    static func json() throws -> [UInt8] { try converted.get() }

    private static let converted = Result { () throws -> [UInt8] in
        guard let node = try Yams.compose(yaml: yaml) else {
            throw YamlError.dataCouldNotBeDecoded(encoding: .utf8)
        }
        let data = try JSONSerialization.data(withJSONObject: jsonValue(node), options: [.sortedKeys, .withoutEscapingSlashes])
        return [UInt8](data)
    }

    /// A YAML node as the value JSONSerialization writes: scalars by their resolved tag (a quoted
    /// `"200"` stays a string), mappings with string keys.
    static func jsonValue(_ node: Node) -> Any {
        switch node {
        case .scalar(let scalar):
            switch node.tag.rawValue {
            case Tag.Name.null.rawValue: return NSNull()
            case Tag.Name.bool.rawValue: return node.bool ?? scalar.string
            case Tag.Name.int.rawValue: return node.int ?? scalar.string
            case Tag.Name.float.rawValue: return node.float ?? scalar.string
            default: return scalar.string
            }
        case .mapping(let mapping):
            var object: [String: Any] = [:]
            for (key, value) in mapping { object[key.string ?? "\(key)"] = jsonValue(value) }
            return object
        case .sequence(let sequence):
            return sequence.map(jsonValue)
        case .alias:
            return NSNull()
        }
    }
}
