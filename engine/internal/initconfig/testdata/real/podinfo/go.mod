module github.com/stefanprodan/podinfo

go 1.24
