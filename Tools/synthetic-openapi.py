#!/usr/bin/env python3
"""Writes a large synthetic OpenAPI 3.1 description (JSON) for measuring `apilayer templates import`.

    python3 Tools/synthetic-openapi.py OPERATIONS OUT.json [--padding BYTES]

Each resource has a list, a get, a create and a delete operation; its schema mixes what real
descriptions hold: nested objects, arrays of objects, string enums, bounds, lengths, nullable
fields, allOf over a shared base, a oneOf, patterns, formats and a recursive reference.
Deterministic: the same arguments give the same file. --padding adds long descriptions until
the file reaches about BYTES (for the 50 MB case).
"""
import json
import sys


def resource_schemas(i):
    name = f"Resource{i}"
    return {
        name: {
            "allOf": [
                {"$ref": "#/components/schemas/Base"},
                {
                    "type": "object",
                    "required": ["title", "state", "owner", "labels"],
                    "properties": {
                        "title": {"type": "string", "minLength": 1, "maxLength": 256, "example": f"title {i}"},
                        "state": {"type": "string", "enum": ["open", "closed", "archived"]},
                        "priority": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
                        "score": {"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.01},
                        "owner": {"$ref": "#/components/schemas/User"},
                        "labels": {
                            "type": "array", "maxItems": 20,
                            "items": {"type": "object", "required": ["name"],
                                      "properties": {"name": {"type": "string", "pattern": "^[a-z-]+$"},
                                                     "color": {"type": ["string", "null"], "format": "color"}}},
                        },
                        "target": {"oneOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]},
                        "children": {"type": "array", "items": {"$ref": f"#/components/schemas/{name}"}},
                        "meta": {"type": "object", "additionalProperties": {"type": "string"}},
                        "dueOn": {"type": "string", "format": "date", "nullable": True},
                    },
                },
            ]
        }
    }


def main():
    count = int(sys.argv[1])
    out = sys.argv[2]
    padding = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--padding" else 0
    schemas = {
        "Base": {"type": "object", "required": ["id", "createdAt"],
                 "properties": {"id": {"type": "integer", "minimum": 1},
                                "createdAt": {"type": "string", "format": "date-time"}}},
        "User": {"type": "object", "required": ["login", "id"],
                 "properties": {"login": {"type": "string", "maxLength": 39}, "id": {"type": "integer", "minimum": 1},
                                "site": {"type": "string", "format": "uri"}}},
    }
    paths = {}
    resources = max(1, count // 4)
    for i in range(resources):
        schemas.update(resource_schemas(i))
        ref = {"$ref": f"#/components/schemas/Resource{i}"}
        ok = lambda schema, status="200": {status: {"description": "ok", "content": {"application/json": {"schema": schema}}}}
        paths[f"/r{i}/items"] = {
            "get": {"operationId": f"r{i}/list", "parameters": [{"name": "page", "in": "query", "schema": {"type": "integer"}}],
                    "responses": ok({"type": "object", "required": ["items"],
                                     "properties": {"items": {"type": "array", "items": ref, "maxItems": 100},
                                                    "next": {"type": ["string", "null"]}}})},
            "post": {"operationId": f"r{i}/create",
                     "requestBody": {"content": {"application/json": {"schema": ref}}},
                     "responses": ok(ref, "201")},
        }
        paths[f"/r{i}/items/{{id}}"] = {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"operationId": f"r{i}/get", "responses": ok(ref)},
            "delete": {"operationId": f"r{i}/delete", "responses": {"204": {"description": "gone"}}},
        }
    document = {"openapi": "3.1.0", "info": {"title": f"Synthetic {count}", "version": "1"},
                "paths": paths, "components": {"schemas": schemas}}
    text = json.dumps(document, indent=1, sort_keys=True)
    if padding > len(text):
        filler = "lorem ipsum " * 800
        per = len(json.dumps(filler)) + 20
        notes = {f"n{k}": filler for k in range((padding - len(text)) // per + 1)}
        document["info"]["x-notes"] = notes
        text = json.dumps(document, indent=1, sort_keys=True)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
