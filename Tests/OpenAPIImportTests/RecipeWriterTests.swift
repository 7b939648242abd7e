import Testing

@testable import OpenAPIImport

/// The Swift the recipe writer makes of names and values a description may hold.
@Suite struct RecipeWriterTests {
    @Test func caseNamesAreLowerCamelASCIIUniqueAndNeverAKeywordOrAMember() {
        let names = ["issues/list-for-repo", "get-items-id", "2fa.enable", "default", "path", "ünïcode_op", "issues/list-for-repo", "Pets_Get"]
        #expect(
            RecipeSwiftWriter.caseNames(for: names) == [
                "issuesListForRepo", "getItemsId", "operation2faEnable", "defaultOperation", "pathOperation", "nCodeOp",
                "issuesListForRepo2", "petsGet",
            ])
    }

    @Test func literalsEscapeQuotesBackslashesAndControlCharacters() {
        #expect(RecipeSwiftWriter.literal(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(RecipeSwiftWriter.literal("tab\there\u{1}") == #""tab\there\u{1}""#)
    }

    @Test func madeUpNamesComeFromMethodAndPath() {
        #expect(OpenAPIImporter.madeUpName(method: "get", path: "/items/{id}") == "get-items-id")
        #expect(OpenAPIImporter.madeUpName(method: "post", path: "/") == "post")
        #expect(OpenAPIImporter.madeUpName(method: "delete", path: "/users/{user_id}/keys") == "delete-users-user-id-keys")
    }

    @Test func recipePathsAreRelativeToTheBaseURL() {
        #expect(RecipeSwiftWriter.relativePath("/items/{id}") == "items/{id}")
        #expect(RecipeSwiftWriter.relativePath("items") == "items")
    }
}
