// JSONValue, JSONType, JSONPointer, JSONParseError and the parser and serializer lived in this
// module before they moved to JSONCore. Re-exporting JSONCore keeps code that only says
// `import Validator` compiling unchanged, and the validator's API takes and returns these types.
@_exported import JSONCore
