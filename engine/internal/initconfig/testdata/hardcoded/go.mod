module example.com/hardcoded

go 1.22
