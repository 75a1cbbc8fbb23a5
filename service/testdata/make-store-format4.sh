#!/bin/sh
# make-store-format4.sh BINARY OUT.tar.gz: writes the data directory that
# upgrade_test.go starts today's service on (README.md says what it holds).
# BINARY is a tempmail built at the release the fixture is of; curl (with
# its SMTP support) and tar are all it needs beside it.
set -eu
bin=$1 out=$2
dir=$(mktemp -d) root=$(mktemp -d)
data=$root/data
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir" "$root"' EXIT
http=127.0.0.1:18431 smtp=127.0.0.1:18432 token=fixture-api-token-0123456789
"$bin" serve --data-dir "$data" --http-addr $http --smtp-addr $smtp --domains fixture.test \
	--api-token $token --token-inbox-ttl 876000h --max-inbox-ttl 876000h --message-retention 876000h --auth-checks=false >"$dir/log" 2>&1 &
pid=$!
until curl -sf http://$http/readyz >/dev/null; do sleep 0.2; done

post() { # path body [auth header]
	curl -sf -X POST "http://$http$1" -H 'Content-Type: application/json' -d "$2" ${3:+-H "$3"}
}
admin="Authorization: Bearer $token"
mail() { # to subject body
	printf 'From: Fixture <sender@example.com>\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@example.com>\r\n\r\n%s\r\n' \
		"$1" "$2" "$(echo "$1$2" | md5sum | cut -c1-16)" "$3" >"$dir/msg"
	curl -sf "smtp://$smtp" --mail-from sender@example.com --mail-rcpt "$1" -T "$dir/msg"
}
field() { sed -E "s/.*\"$1\":\"?([^\",}]*)\"?.*/\1/"; }

tenant=$(post /api/tenants/ '{"name":"fixture","quota":{"inboxes":100,"messages_per_day":1000}}' "$admin" | field id)
gone=$(post /api/tenants/ '{"name":"deleted"}' "$admin" | field id)
key=$(post /api/tenants/$tenant/keys/ '{"name":"live","scopes":["inboxes","read"]}' "$admin" | field key)
revoked_json=$(post /api/tenants/$tenant/keys/ '{"name":"revoked","scopes":["inboxes"]}' "$admin")
revoked=$(echo "$revoked_json" | field key)
curl -sf -X DELETE http://$http/api/keys/$(echo "$revoked_json" | field id)/ -H "$admin"
curl -sf -X DELETE http://$http/api/tenants/$gone/ -H "$admin"

c=$(post /inboxes/ '{"name":"c1"}')
ctoken=$(echo "$c" | field token)
mail c1@fixture.test "c1 first" "the first"
mail c1@fixture.test "c1 second 123456" "the code is 123456"
first=$(curl -sf http://$http/inboxes/$ctoken/messages/ | sed -E 's/.*"id":"([^"]*)","from[^]]*"subject":"c1 first".*/\1/')
curl -sf -X POST http://$http/inboxes/$ctoken/messages/$first/read/ >/dev/null
post /api/create-temp-email/ '{"email_name":"b1"}' >/dev/null
mail b1@fixture.test "b1 kept" "kept for the retention"
domain=$(curl -sf http://$http/api/domains/ | field id)
a=$(post /api/inboxes/create_inbox/ "{\"domain_id\":$domain,\"ttl\":3153600000}" "Authorization: Bearer $key")
aid=$(echo "$a" | field id) aaddr=$(echo "$a" | field email)
mail "$aaddr" "a tenant's" "to the tenant's inbox"
post /compat/mailtm/accounts '{"address":"tm1@fixture.test","password":"fixture-password-1"}' "Authorization: Bearer $key" >/dev/null
mail tm1@fixture.test "mail.tm's" "to the mail.tm account"
server=$(post /compat/mailosaur/api/servers '{"name":"fixture server"}' "Authorization: Basic $(printf '%s:' "$key" | base64 -w0)" | field id)
# A server's inboxes are made by its first message, for an hour: long
# gone whenever the test runs. The server stays.
mail "someone@$server.fixture.test" "mailosaur's" "to the server"

cat >"$root/manifest.json" <<JSON
{"api_token":"$token","tenant":"$tenant","deleted_tenant":"$gone","key":"$key","revoked_key":"$revoked",
 "c1":{"token":"$ctoken","read":"$first"},"a1":{"id":"$aid","email":"$aaddr"},
 "mailtm":{"address":"tm1@fixture.test","password":"fixture-password-1"},"mailosaur_server":"$server"}
JSON
kill $pid
wait $pid || true
tar -C "$root" -czf "$out" data manifest.json
echo "wrote $out"
