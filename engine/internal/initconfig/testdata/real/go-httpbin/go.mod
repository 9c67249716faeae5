module github.com/mccutchen/go-httpbin/v2

go 1.22.0
