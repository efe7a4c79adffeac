package mcp_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// TestSupportedVersionsIsACopy: SupportedVersions is handed out as a
// fresh copy, so a caller that changes it changes nothing mcpkit
// negotiates.
func TestSupportedVersionsIsACopy(t *testing.T) {
	want := []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	got := mcp.SupportedVersions()
	if !slices.Equal(got, want) {
		t.Fatalf("SupportedVersions() = %v, want %v", got, want)
	}
	got[0] = "1999-01-01"
	if again := mcp.SupportedVersions(); !slices.Equal(again, want) {
		t.Errorf("after changing its result, SupportedVersions() = %v, want %v", again, want)
	}
}

// TestVersionEra: each version mcpkit serves has its era; any other has
// none.
func TestVersionEra(t *testing.T) {
	for _, tc := range []struct {
		v   string
		era mcp.ProtocolEra
		ok  bool
	}{
		{"2026-07-28", mcp.EraStateless, true},
		{"2025-11-25", mcp.EraSession, true},
		{"2025-06-18", mcp.EraSession, true},
		{"2025-03-26", mcp.EraSession, true},
		{"2024-11-05", mcp.EraSession, true},
		{"1999-01-01", mcp.EraAuto, false},
		{"", mcp.EraAuto, false},
	} {
		if era, ok := mcp.VersionEra(tc.v); era != tc.era || ok != tc.ok {
			t.Errorf("VersionEra(%q) = %v, %t; want %v, %t", tc.v, era, ok, tc.era, tc.ok)
		}
	}
}

// TestUserRejectedSamplingError: code -1 as the spec gives it, a new value
// per call, matched by errors.Is on the code.
func TestUserRejectedSamplingError(t *testing.T) {
	e := mcp.UserRejectedSamplingError()
	if e.Code != -1 || mcp.CodeUserRejectedSampling != -1 || e.Message != "User rejected sampling request" || e.Data != nil {
		t.Errorf("UserRejectedSamplingError() = %+v", e)
	}
	e.Message = "changed"
	if again := mcp.UserRejectedSamplingError(); again.Message != "User rejected sampling request" {
		t.Errorf("after changing one, the next has message %q", again.Message)
	}
	if !errors.Is(e, mcp.UserRejectedSamplingError()) {
		t.Error("errors.Is does not match two UserRejectedSamplingError values")
	}
}
