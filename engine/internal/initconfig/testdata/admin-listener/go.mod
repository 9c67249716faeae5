module example.com/admin

go 1.22
