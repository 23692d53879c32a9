//go:build race

package main

// raceBuild: these tests run with the race detector, so the clada the
// scripts start is built with it too.
const raceBuild = true
