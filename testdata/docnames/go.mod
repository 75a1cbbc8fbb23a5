module fixture

go 1.26

require github.com/nats-io/nats.go v1.55.0
