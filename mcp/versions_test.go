package mcp_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// TestVersionListsAreCopies: the version lists are handed out as fresh
// copies, so a caller that changes one changes nothing mcpkit negotiates.
func TestVersionListsAreCopies(t *testing.T) {
	for _, tc := range []struct {
		name string
		list func() []string
		want []string
	}{
		{"StatelessVersions", mcp.StatelessVersions, []string{"2026-07-28"}},
		{"SupportedVersions", mcp.SupportedVersions, []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}},
		{"ServedVersions", mcp.ServedVersions, []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}},
	} {
		got := tc.list()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s() = %v, want %v", tc.name, got, tc.want)
		}
		got[0] = "1999-01-01"
		if again := tc.list(); !slices.Equal(again, tc.want) {
			t.Errorf("after changing its result, %s() = %v, want %v", tc.name, again, tc.want)
		}
	}
	if !mcp.IsStatelessVersion("2026-07-28") || mcp.IsStatelessVersion("2025-11-25") {
		t.Error("IsStatelessVersion does not follow StatelessVersions")
	}
	if !mcp.IsSupportedVersion("2024-11-05") || mcp.IsSupportedVersion("2026-07-28") || mcp.IsSupportedVersion("1999-01-01") {
		t.Error("IsSupportedVersion does not follow SupportedVersions")
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
