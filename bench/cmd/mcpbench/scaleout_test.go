package main

import (
	"maps"
	"testing"
)

func TestParseInfo(t *testing.T) {
	info := "# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n\r\n" +
		"# Stats\r\ntotal_commands_processed:4200\r\n\r\n" +
		"# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:9.0\r\n\r\n" +
		"# Commandstats\r\ncmdstat_evalsha:calls=900,usec=8100,usec_per_call=9.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_hset:calls=7,usec=7,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r\n"
	s := parseInfo(info)
	if s.commands != 4200 || s.usedMem != 1048576 || s.cpu != 3.75 {
		t.Fatalf("parseInfo = commands %d, used_memory %d, cpu %v; want 4200, 1048576, 3.75", s.commands, s.usedMem, s.cpu)
	}
	if want := map[string]int64{"evalsha": 900, "hset": 7}; !maps.Equal(s.byCmd, want) {
		t.Fatalf("commandstats = %v, want %v", s.byCmd, want)
	}
}

func TestKeyKind(t *testing.T) {
	for key, want := range map[string]string{
		"mcpbench:1:2:s:{abc}":              "s",
		"mcpbench:1:2:ev:{abc}":             "ev",
		"mcpbench:1:2:evb:{abc}":            "evb",
		"mcpbench:1:2:sessions":             "sessions",
		"mcpbench:1:2:evsize:{events}":      "evsize",
		"mcpbench:1:2:t:{0123}:task":        "t",
		"mcpbench:1:2:evo:{abc}:broadcast1": "evo",
	} {
		if got := keyKind("mcpbench:1:2:", key); got != want {
			t.Errorf("keyKind(%q) = %q, want %q", key, got, want)
		}
	}
}
