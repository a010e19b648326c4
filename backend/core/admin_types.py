"""Django's admin classes as the generics django-stubs makes of them (`ModelAdmin[Test]`), at run time too.

The type checker reads django-stubs' generic classes; Django's own classes are not subscriptable, so at run time
these subclasses take the type parameters and give back themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin

if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin
    TabularInline = admin.TabularInline
else:

    class ModelAdmin(admin.ModelAdmin):
        def __class_getitem__(cls, _params: Any) -> type:
            return cls

    class TabularInline(admin.TabularInline):
        def __class_getitem__(cls, _params: Any) -> type:
            return cls
