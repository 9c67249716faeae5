module example.com/defaultmux

go 1.22
