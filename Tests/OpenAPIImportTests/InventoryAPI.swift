// Written by `apilayer templates import inventory.yaml --swift InventoryAPI.swift`.
// Regenerate it rather than edit it: the templates and this enum come from the same description.

import APILayer
import NetOps
import Validator

/// The operations of Inventory, in the recipe's form: a case per operation, whose raw value is
/// its operationId and the name of its template. Give it a scope of its own in an extension
/// (`static var api: APIScope { … }`) when it is not the service's default API.
public enum InventoryAPI: String, APIMethod, CaseIterable {
    /// A page of items.
    case listItems = "listItems"
    /// Adds an item.
    case createItem = "createItem"
    /// One item.
    case getItem = "getItem"
    /// Removes an item.
    case deleteItem = "deleteItem"

    /// Where each method lives below the API's base URL; `{name}` placeholders come from the call.
    public var path: String {
        switch self {
        case .listItems: return "items"
        case .createItem: return "items"
        case .getItem: return "items/{id}"
        case .deleteItem: return "items/{id}"
        }
    }

    /// The HTTP method of each operation.
    public var httpMethod: HTTPMethod {
        switch self {
        case .listItems: return .get
        case .createItem: return .post
        case .getItem: return .get
        case .deleteItem: return .delete
        }
    }

    /// How each operation's parameters travel: the query without a request body, else the body's type.
    public var encoding: RequestEncoding {
        switch self {
        case .listItems: return .query
        case .createItem: return .json
        case .getItem: return .query
        case .deleteItem: return .query
        }
    }

    /// No parameter is sent unless the call gives it.
    public var defaultParameters: Parameters { [:] }

    /// The success status the description declares for each operation.
    public var acceptedStatuses: Set<Int> {
        switch self {
        case .listItems: return [200]
        case .createItem: return [201]
        case .getItem: return [200]
        case .deleteItem: return [204]
        }
    }

    /// Operations without a JSON success body have no template: nothing is validated.
    public var validation: ValidationPolicy {
        switch self {
        case .listItems: return .automatic(.all)
        case .createItem: return .automatic(.all)
        case .getItem: return .automatic(.all)
        case .deleteItem: return .custom { _ in [] }
        }
    }
}
