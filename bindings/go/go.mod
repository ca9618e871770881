module libdag/bindings/go

go 1.19
