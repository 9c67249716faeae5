module example.com/perfgate-example

go 1.24
