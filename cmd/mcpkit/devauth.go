package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mcpkit/mcpkit/auth/devserver"
)

// devAuthServer implements `mcpkit dev-auth-server`: the development
// authorization server of package auth/devserver on a loopback address,
// until SIGINT or SIGTERM. It prints its issuer URL on stdout and logs
// its grants on stderr. NOT FOR PRODUCTION: it approves every request.
func devAuthServer(ctx context.Context, e *env, args []string) error {
	var addr, subject, keyFile string
	var deviceInterval time.Duration
	fs := newFlagSet("dev-auth-server")
	fs.StringVar(&addr, "addr", devserver.DefaultAddr, "listen on this loopback `ADDR`")
	fs.StringVar(&subject, "subject", devserver.DefaultSubject, "the `SUBJECT` (sub claim) of every token")
	fs.StringVar(&keyFile, "key", "", "sign tokens with the P-256 private key in this PEM `FILE` (default: a new key)")
	fs.DurationVar(&deviceInterval, "device-interval", devserver.DefaultDeviceInterval, "the device grant's polling `INTERVAL` (whole seconds, at least 1s): a client that polls sooner gets slow_down")
	positional, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("dev-auth-server: unexpected argument %q", positional[0])
	}
	opts := devserver.Options{
		Addr:           addr,
		Subject:        subject,
		DeviceInterval: deviceInterval,
		Logger:         slog.New(slog.NewTextHandler(e.stderr, nil)),
	}
	if keyFile != "" {
		data, err := os.ReadFile(keyFile)
		if err != nil {
			return fmt.Errorf("dev-auth-server: %w", err)
		}
		if opts.Key, err = devserver.LoadKey(data); err != nil {
			return fmt.Errorf("dev-auth-server: %s: %w", keyFile, err)
		}
	}
	s, err := devserver.Start(opts)
	if err != nil {
		return fmt.Errorf("dev-auth-server: %w", err)
	}
	fmt.Fprintf(e.stdout, "%s\n", s.Issuer())
	fmt.Fprintf(e.stderr, "mcpkit dev-auth-server: issuer %s, subject %q: approves every request; for development only, never in production\n", s.Issuer(), subject)
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(shutdownCtx); err != nil {
		s.Close()
	}
	return nil
}
