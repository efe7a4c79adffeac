package mcp_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
)

// TestVersions: each era's versions, newest first, handed out as fresh
// copies, so a caller that changes one changes nothing mcpkit negotiates.
func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		era  mcp.ProtocolEra
		want []string
	}{
		{mcp.EraSession, []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}},
		{mcp.EraStateless, []string{"2026-07-28"}},
		{mcp.EraAuto, []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}},
	} {
		got := mcp.Versions(tc.era)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Versions(%v) = %v, want %v", tc.era, got, tc.want)
		}
		got[0] = "1999-01-01"
		if again := mcp.Versions(tc.era); !slices.Equal(again, tc.want) {
			t.Errorf("after changing its result, Versions(%v) = %v, want %v", tc.era, again, tc.want)
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
