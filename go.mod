module github.com/cordon-ir/cordon

go 1.26.8
