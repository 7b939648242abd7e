// Mapper's API takes `JSONValue`: re-exporting JSONCore lets a caller that says only
// `import Mapper` parse a body and map it, without a second import.
@_exported import JSONCore
