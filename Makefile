# The two set-up commands of the README are `make run` and `make test`; every
# tool the tests need is installed by the targets below into .tools/.

GO        ?= go
TOOLS     := $(CURDIR)/.tools
NODE_DIR  := $(TOOLS)/node
VALIDATOR := $(NODE_DIR)/node_modules/.bin/validate-api
# The invitation code accepted by a local `make run` unless one is given.
SVC_INVITATION_CODES ?= bienvenue
export SVC_INVITATION_CODES

.PHONY: run test vet unit openapi-check bench build fmt

## run: the local all-in-one server (embedded storage), in the foreground
run:
	$(GO) run ./functions/local

## test: vet, every Go test (race detector on), OpenAPI document validation
test: vet openapi-check unit

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))" || { gofmt -l .; echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test -race -count=1 ./...

$(VALIDATOR):
	mkdir -p $(NODE_DIR)
	cd $(NODE_DIR) && npm install --no-audit --no-fund --no-save --loglevel=error @seriousme/openapi-schema-validator@2.11.0

## openapi-check: the served /api/openapi.json loads in a real OpenAPI 3.1 validator
openapi-check: $(VALIDATOR)
	SVC_OPENAPI_OUT=$(TOOLS)/openapi.json $(GO) test -count=1 -run '^TestOpenAPIDocument$$' ./shared/api
	$(VALIDATOR) $(TOOLS)/openapi.json

## bench: Go benchmarks and the loopback load test (figures in docs/benchmarks.md)
bench:
	@command -v wrk >/dev/null 2>&1 || { (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null 2>&1 || echo 'wrk not installable: the load benchmark falls back to its Go client'; }
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./shared/...
	$(GO) test -run '^$$' -bench 'Load' -benchtime 1x -timeout 10m ./functions/local
