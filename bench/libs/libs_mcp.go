//go:build libs_mcp

package main

import _ "github.com/modelcontextprotocol/go-sdk/mcp"
