module example.com/perfgate-hot-paths

go 1.24

require (
	github.com/go-chi/chi/v5 v5.2.3
	github.com/tidwall/gjson v1.18.0
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
)
