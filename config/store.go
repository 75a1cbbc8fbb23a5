package config

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// storeOptions are the flags of the store and NATS: where the data is and
// when it is on disk, an external NATS or an embedded cluster node, and the
// memory and disk the process keeps to.
func storeOptions() []option {
	return []option{
		{"data-dir", "./data", "directory for the event store and views", func(c *Config, v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("must be a directory path")
			}
			c.DataDir = v
			return nil
		}},
		{"sync", "always", "when the embedded NATS puts writes on disk: always (before any 250 or 201 is answered), or a duration such as 2m (faster; a power cut or OS crash loses what was acknowledged in the last moments)", func(c *Config, v string) error {
			if v == "always" {
				c.SyncInterval = 0
				return nil
			}
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond || d > time.Hour {
				return errors.New("must be always, or a duration from 100ms to 1h such as 2m")
			}
			c.SyncInterval = d
			return nil
		}},
		{"nats-url", "", "NATS server URL(s); empty runs NATS embedded with data in --data-dir", func(c *Config, v string) error {
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u != "" && !strings.Contains(u, "://") {
					return errors.New("must be empty or URLs such as nats://host:4222, separated by commas")
				}
			}
			c.NATSURL = strings.TrimSpace(v)
			return nil
		}},
		{"nats-creds", "", "credentials file for --nats-url", func(c *Config, v string) error {
			c.NATSCreds = v
			return nil
		}},
		{"nats-tls-ca", "", "PEM CA bundle that signs the --nats-url servers' certificates", func(c *Config, v string) error {
			c.NATSTLSCA = v
			return nil
		}},
		{"nats-tls-cert", "", "PEM client certificate for --nats-url (with --nats-tls-key)", func(c *Config, v string) error {
			c.NATSTLSCert = v
			return nil
		}},
		{"nats-tls-key", "", "PEM client key for --nats-url (with --nats-tls-cert)", func(c *Config, v string) error {
			c.NATSTLSKey = v
			return nil
		}},
		{"server-name", "", "this node's name in an embedded cluster; default: the host name", func(c *Config, v string) error {
			if strings.ContainsAny(v, " \t.*>") {
				return errors.New("must be a name without spaces, dots, * or >, such as tempmail-1")
			}
			c.ServerName = v
			return nil
		}},
		{"cluster-name", "", "embedded JetStream cluster name; empty: a single node", func(c *Config, v string) error {
			if strings.ContainsAny(v, " \t.*>") {
				return errors.New("must be a name without spaces, dots, * or >, such as tempmail")
			}
			c.ClusterName = v
			return nil
		}},
		{"cluster-addr", "", "route listener of an embedded cluster node (host:port)", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			return dialablePort(&c.ClusterAddr, v)
		}},
		{"cluster-advertise", "", "host:port other cluster nodes dial to reach this node's routes, when --cluster-addr is not it (behind NAT, a container's port mapping or a proxy); empty: --cluster-addr", func(c *Config, v string) error {
			if v == "" {
				c.ClusterAdvertise = ""
				return nil
			}
			return dialablePort(&c.ClusterAdvertise, v)
		}},
		{"routes", "", "route URLs of every cluster node, this one included, separated by commas", func(c *Config, v string) error {
			c.Routes = nil
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u == "" {
					continue
				}
				if !strings.HasPrefix(u, "nats://") && !strings.HasPrefix(u, "nats-route://") && !strings.HasPrefix(u, "tls://") {
					return errors.New("must be URLs such as nats://tempmail-1:6222, separated by commas")
				}
				c.Routes = append(c.Routes, u)
			}
			return nil
		}},
		{"nats-listen", "", "client listener of the embedded NATS server (host:port), for the nats CLI and other processes; empty: none; required in a cluster", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			return dialablePort(&c.NATSListen, v)
		}},
		{"replicas", "1", "copies of each stream, KV bucket and object store: 1, or 3 in a cluster", func(c *Config, v string) error {
			switch v {
			case "1":
				c.Replicas = 1
			case "3":
				c.Replicas = 3
			default:
				return errors.New("must be 1 or 3")
			}
			return nil
		}},
		{"memory-limit", "1GiB", "soft memory limit of the process, a size: " + sizeUnits + "; 0: none", func(c *Config, v string) error {
			n, err := byteSize(v)
			if err != nil || (n != 0 && n < 64<<20) {
				return errors.New("must be 0 (no limit) or a size of at least 64MiB, such as 512MiB or 2GiB: " + sizeUnits)
			}
			c.MemoryLimit = n
			return nil
		}},
		{"min-free-disk", "256MiB", "room kept free on the data directory's disk (embedded NATS): below it new mail gets 452 4.3.1 and new inboxes 507, while deletions go on; a size: " + sizeUnits + "; 0: none", func(c *Config, v string) error {
			n, err := byteSize(v)
			if err != nil {
				return errors.New("must be a size such as 256MiB, or 0 for none: " + sizeUnits)
			}
			c.MinFreeDisk = n
			return nil
		}},
	}
}

// checkNATS validates the choice between an embedded single node, an
// embedded cluster node and an external NATS.
func (c Config) checkNATS() error {
	external := c.NATSURL != ""
	if !external && (c.NATSCreds != "" || c.NATSTLSCA != "" || c.NATSTLSCert != "" || c.NATSTLSKey != "") {
		return errors.New("invalid --nats-creds/--nats-tls-*: they configure the connection to --nats-url, which is not set")
	}
	if (c.NATSTLSCert == "") != (c.NATSTLSKey == "") {
		return errors.New("invalid --nats-tls-cert/--nats-tls-key: give both files, or neither")
	}
	cluster := c.ClusterName != ""
	if external && (cluster || c.ClusterAddr != "" || c.ClusterAdvertise != "" || len(c.Routes) > 0 || c.NATSListen != "") {
		return errors.New("invalid --nats-url with --cluster-name/--cluster-addr/--cluster-advertise/--routes/--nats-listen: use an external NATS or run one embedded, not both")
	}
	if !cluster && (c.ClusterAddr != "" || c.ClusterAdvertise != "" || len(c.Routes) > 0) {
		return errors.New("invalid --cluster-addr/--cluster-advertise/--routes: they need --cluster-name")
	}
	if cluster {
		switch {
		case c.ClusterAddr == "":
			return errors.New("invalid --cluster-name without --cluster-addr: a cluster node needs a route listener, such as 0.0.0.0:6222")
		case len(c.Routes) == 0:
			return errors.New("invalid --cluster-name without --routes: list every node's route URL, this node's included")
		case c.NATSListen == "":
			return errors.New("invalid --cluster-name without --nats-listen: a cluster node needs a client listener, such as 127.0.0.1:4222")
		}
	}
	if c.Replicas > 1 && !cluster && !external {
		return fmt.Errorf("invalid --replicas %d: a single embedded node keeps one copy; replicas need --cluster-name or --nats-url", c.Replicas)
	}
	return nil
}

// dialablePort is hostPort for a listener others dial by its port, which
// must therefore be a fixed one.
func dialablePort(dst *string, v string) error {
	if err := hostPort(dst, v); err != nil {
		return err
	}
	if _, port, _ := net.SplitHostPort(v); port == "" || strings.Trim(port, "0") == "" {
		*dst = ""
		return errors.New("must be host:port with a port from 1 to 65535, such as 0.0.0.0:6222: other processes dial it")
	}
	return nil
}
