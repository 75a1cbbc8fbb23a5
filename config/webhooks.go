package config

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// webhookOptions are the flags of outbound webhooks: when a failed delivery
// is tried again, and whether targets may be on private addresses.
func webhookOptions() []option {
	return []option{
		{"webhook-retry-schedule", "5s,5m,30m,2h,5h,10h,10h", "waits before each retry of a failed webhook delivery, separated by commas; none: no retries", func(c *Config, v string) error {
			c.WebhookRetrySchedule = nil
			if strings.TrimSpace(v) == "none" {
				return nil
			}
			for _, f := range strings.Split(v, ",") {
				d, err := time.ParseDuration(strings.TrimSpace(f))
				if err != nil || d < time.Second || d > 7*24*time.Hour {
					return errors.New("must be durations from 1s to 168h separated by commas, such as 5s,5m,30m, or none")
				}
				c.WebhookRetrySchedule = append(c.WebhookRetrySchedule, d)
			}
			if len(c.WebhookRetrySchedule) > 20 {
				return errors.New("must have at most 20 retries")
			}
			return nil
		}},
		{"webhook-allow-private", "false", "let webhooks target loopback, private and link-local addresses", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.WebhookAllowPrivate = b
			return nil
		}},
	}
}
