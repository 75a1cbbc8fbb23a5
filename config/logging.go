package config

import (
	"errors"
	"log/slog"
	"strconv"
	"strings"
)

// logOptions are the flags of logging: the level, the format of every
// line, and the access log.
func logOptions() []option {
	return []option{
		{"log-level", "info", "debug, info, warn or error", func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "debug":
				c.LogLevel = slog.LevelDebug
			case "info":
				c.LogLevel = slog.LevelInfo
			case "warn", "warning":
				c.LogLevel = slog.LevelWarn
			case "error":
				c.LogLevel = slog.LevelError
			default:
				return errors.New("must be debug, info, warn or error")
			}
			return nil
		}},
		{"log-format", "text", "text or json", func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "text", "json":
				c.LogFormat = strings.ToLower(v)
				return nil
			}
			return errors.New("must be text or json")
		}},
		{"access-log", "false", "log one line per HTTP request (method, route, status, bytes, duration, client IP)", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.AccessLog = b
			return nil
		}},
	}
}
