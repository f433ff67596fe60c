module tricktable.dev/stdio-go

go 1.19
